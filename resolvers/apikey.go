package resolvers

import (
	"context"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/graph/model"
	"github.com/agenttrust/service/preload"
)

// APIKeys lists the organization's keys (the edge lets admin keys only).
func (r *queryResolver) APIKeys(ctx context.Context) ([]*auth.KeyInfo, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := r.svc.Keys.ListKeys(ctx, p)
	if err != nil {
		return nil, err
	}
	out := make([]*auth.KeyInfo, len(keys))
	for i := range keys {
		out[i] = &keys[i]
	}
	return out, nil
}

// Whoami describes the key the request authenticated with.
func (r *queryResolver) Whoami(ctx context.Context) (*auth.KeyInfo, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	k, err := r.svc.Keys.Key(ctx, p, p.KeyID)
	return &k, err
}

// CreateAPIKey issues a key to the organization; the answer holds its
// secret, shown only here.
func (r *mutationResolver) CreateAPIKey(ctx context.Context, input auth.KeyInput) (*model.CreatedAPIKey, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	k, secret, err := r.svc.Keys.IssueKey(ctx, p, input)
	if err != nil {
		return nil, err
	}
	return &model.CreatedAPIKey{Key: &k, Secret: secret}, nil
}

// RevokeAPIKey revokes one of the organization's keys, the caller's own too.
func (r *mutationResolver) RevokeAPIKey(ctx context.Context, keyID string) (*auth.KeyInfo, error) {
	p, err := auth.FromContext(ctx)
	if err != nil {
		return nil, err
	}
	k, err := r.svc.Keys.RevokeOrgKey(ctx, p, keyID)
	return &k, err
}

// readKeys reads p's organization's keys among ids into found, for an
// admin key only: to any other key a key id is NOT_FOUND, as apiKeys is
// refused to it.
func (r *queryResolver) readKeys(ctx context.Context, p auth.Principal, ids []string, found map[string]preload.Node) error {
	if p.Role != auth.RoleAdmin {
		return nil
	}
	keys, err := r.svc.Keys.KeysByID(ctx, p, ids)
	for i := range keys {
		found[keys[i].ID] = &keys[i]
	}
	return err
}
