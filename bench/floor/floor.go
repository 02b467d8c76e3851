// Package floor is the least a Go server can do for the dashboard's page of
// agents: the baseline the service's read path is compared with, by
// bench/read (wrk) and bench/load (in its own process).
package floor

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// agent is one node of the floor's answer: the plain page's fields.
type agent struct {
	ID            string      `json:"id"`
	Name          string      `json:"name"`
	Status        string      `json:"status"`
	SpendingLimit json.Number `json:"spendingLimit"`
	Currency      string      `json:"currency"`
	Environment   string      `json:"environment"`
	CreatedAt     string      `json:"createdAt"`
}

// Handler is the least a Go server can do for the plain page: decode the
// request, require a bearer token, run one SELECT of the same columns through
// pgxpool, write the answer with encoding/json. It does no authentication
// lookup, no GraphQL, no limits: the throughput the service is compared with.
func Handler(pool *pgxpool.Pool, orgID string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		rows, err := pool.Query(r.Context(), `SELECT id, name, status, spending_limit::text, currency, environment, created_at
			FROM agents WHERE org_id = $1 ORDER BY seq DESC LIMIT 50`, orgID)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		nodes := make([]agent, 0, 50)
		for rows.Next() {
			var a agent
			var limit string
			var created time.Time
			if err := rows.Scan(&a.ID, &a.Name, &a.Status, &limit, &a.Currency, &a.Environment, &created); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			a.SpendingLimit = json.Number(limit)
			a.CreatedAt = created.UTC().Format("2006-01-02T15:04:05.000Z07:00")
			nodes = append(nodes, a)
		}
		if err := rows.Err(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var resp struct {
			Data struct {
				Agents struct {
					Nodes []agent `json:"nodes"`
				} `json:"agents"`
			} `json:"data"`
		}
		resp.Data.Agents.Nodes = nodes
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&resp)
	})
}
