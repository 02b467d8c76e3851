package main

import (
	"context"
	"time"
)

func webhookScenario(context.Context, *env, config) []group  { return nil }
func runSoak(context.Context, string, time.Duration, time.Duration) error { return nil }
