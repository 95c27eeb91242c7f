package jobs

import (
	"context"
	"fmt"
)

// JobCount is how many jobs of one kind are in one state.
type JobCount struct {
	State, Kind string
	Count       int64
}

// DepthCap bounds how many jobs of each state Depth counts, so that a scrape of a huge backlog
// reads a bounded number of index entries; a count at the cap means "at least".
const DepthCap = 100_000

// depthQuery counts the jobs not yet finalized (available, scheduled, retryable, running,
// pending), by state and kind, reading at most $1 jobs of each state through River's
// (state, …) index. River's tables are created by its own migrations, not ours, so sqlc does not
// know them; this is the one query the service runs on them.
const depthQuery = `
SELECT s.state, j.kind, count(*)
FROM unnest(ARRAY['available', 'scheduled', 'retryable', 'running', 'pending']) AS s(state)
CROSS JOIN LATERAL (
    SELECT kind FROM river_job WHERE river_job.state = s.state::river_job_state LIMIT $1
) AS j
GROUP BY s.state, j.kind
ORDER BY s.state, j.kind`

// Depth counts the queue's unfinished jobs by state and kind, at most DepthCap of each state.
func (q *Queue) Depth(ctx context.Context) ([]JobCount, error) {
	rows, err := q.pool.Query(ctx, depthQuery, DepthCap)
	if err != nil {
		return nil, fmt.Errorf("queue depth: %w", err)
	}
	defer rows.Close()
	var out []JobCount
	for rows.Next() {
		var c JobCount
		if err := rows.Scan(&c.State, &c.Kind, &c.Count); err != nil {
			return nil, fmt.Errorf("queue depth: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("queue depth: %w", err)
	}
	return out, nil
}
