package main

import "runtime"

func numCPU() int { return runtime.NumCPU() }
