package resolvers

import "github.com/agenttrust/service/graph/model"

func pageInfo(endCursor string, hasNext bool) *model.PageInfo {
	p := &model.PageInfo{HasNextPage: hasNext}
	if endCursor != "" {
		p.EndCursor = &endCursor
	}
	return p
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
