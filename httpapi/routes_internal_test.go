package httpapi

import (
	"maps"
	"slices"
)

// RESTRoutes lists the pattern of every REST route, for the role tests.
func RESTRoutes() []string {
	return append(slices.Collect(maps.Keys((&restEdge{}).routes())), exportRoute)
}
