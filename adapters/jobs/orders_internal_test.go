package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/orders"
)

// stepAnswer is what a fulfilment step answers.
type stepAnswer struct {
	next time.Duration
	err  error
}

func (a stepAnswer) Fulfil(context.Context, uuid.UUID) (time.Duration, error) { return a.next, a.err }

// An order's step says how its job goes on: a wait snoozes it, zero ends it, an error is
// River's to retry, and an order that waits for an operator ends its job with an error-level
// log (the alert) instead of an error, which River would retry, asking and alerting again.
func TestFulfilWorkerEndsTheJobOfAnOrderAwaitingAnOperator(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	job := &river.Job[FulfilOrderArgs]{JobRow: &rivertype.JobRow{}, Args: FulfilOrderArgs{OrderID: id}}
	down := errors.New("database down")
	awaiting := fmt.Errorf("STORE order %s: %w", id, orders.ErrAwaitingOperator)

	for _, c := range []struct {
		name   string
		answer stepAnswer
		snooze time.Duration // 0: no snooze
		fails  error         // the error Work returns, nil for none
		alerts bool
	}{
		{name: "asked again later", answer: stepAnswer{next: 4 * time.Minute}, snooze: 4 * time.Minute},
		{name: "final", answer: stepAnswer{}},
		{name: "an error", answer: stepAnswer{err: down}, fails: down},
		{name: "awaiting an operator", answer: stepAnswer{err: awaiting}, alerts: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			w := &fulfilWorker{f: c.answer, log: slog.New(slog.NewJSONHandler(&logs, nil))}
			err := w.Work(context.Background(), job)
			var snooze *rivertype.JobSnoozeError
			switch {
			case c.snooze > 0:
				require.ErrorAs(t, err, &snooze)
				require.Equal(t, c.snooze, snooze.Duration)
			case c.fails != nil:
				require.ErrorIs(t, err, c.fails)
			default:
				require.NoError(t, err, "the job ends")
			}
			if !c.alerts {
				require.Empty(t, logs.String())
				return
			}
			var line struct {
				Level   string `json:"level"`
				OrderID string `json:"order_id"`
				Error   string `json:"error"`
			}
			require.NoError(t, json.Unmarshal(logs.Bytes(), &line), logs.String())
			require.Equal(t, "ERROR", line.Level, "an alert")
			require.Equal(t, id.String(), line.OrderID)
			require.Contains(t, line.Error, orders.ErrAwaitingOperator.Error())
		})
	}
}
