package postgres

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// turns are the queues of group commit (coins_hot.go: one balance's movements; partner_turns.go:
// one wallet's orders), by key: an operation that finds nothing of its key running on this
// instance runs at once by itself; one that finds another running waits in the key's queue, and
// when the running one finishes, the first waiter leads the next turn: every waiter (at most
// maxHotBatch), run together by the lead. A waiter whose context ends before its turn is taken
// leaves the queue with the context's error; once taken, it waits for its turn's outcome.
type turns[K comparable, W any] struct {
	mu sync.Mutex
	// lines holds a queue for each key with an operation (or a turn) running.
	lines map[K][]*waiter[W]
	// batches counts the turns of two operations or more run together, batched their
	// operations, and failed those whose transaction did not commit.
	batches, batched, failed atomic.Int64
	// beforeSend, when set (tests), runs in the leader once a turn of two operations or more is
	// taken, before it is sent.
	beforeSend func(n int)
}

// turnTimeout bounds a turn, which no caller's context can cancel.
const turnTimeout = 10 * time.Second

// together starts a turn of two operations or more, run as one transaction: it counts the turn,
// runs beforeSend, opens each operation's span on d (ends[i] closes operation i's), and returns
// the context the turn runs in, detached from the callers' (a waiter taken in a turn hears its
// outcome) and bounded by turnTimeout.
func (t *turns[K, W]) together(d *DB, turn []*waiter[W]) (ctx context.Context, cancel context.CancelFunc, ends []func(error)) {
	if f := t.beforeSend; f != nil {
		f(len(turn))
	}
	t.batches.Add(1)
	t.batched.Add(int64(len(turn)))
	ends = make([]func(error), len(turn))
	for i, w := range turn {
		_, ends[i] = d.span(w.ctx)
	}
	ctx, cancel = context.WithTimeout(context.WithoutCancel(turn[0].ctx), turnTimeout)
	return ctx, cancel, ends
}

func newTurns[K comparable, W any]() turns[K, W] { return turns[K, W]{lines: map[K][]*waiter[W]{}} }

// waiter is a queued operation, op.
type waiter[W any] struct {
	ctx context.Context
	op  W
	// lead hands the waiter its turn to run: the waiters it leads (itself first).
	lead chan []*waiter[W]
	// done is closed once err (and what op holds of its outcome), or alone, are set.
	done chan struct{}
	err  error
	// alone: the turn did not run the operation; its caller runs it by itself.
	alone bool
	// taken (under turns.mu): out of the queue, in a turn or dropped.
	taken bool
}

// wait queues op behind the operation of key that is running, if one is, and returns once op
// has its outcome: w.err, what the turn set in op, or w.alone. A waiter handed the lead runs
// its turn with run, which must give each waiter of the turn its outcome (closing its done)
// and then call next. When nothing of key is running, wait returns first: the caller runs op
// by itself, then calls next.
func (t *turns[K, W]) wait(ctx context.Context, key K, op W, run func([]*waiter[W])) (w *waiter[W], first bool) {
	t.mu.Lock()
	queue, running := t.lines[key]
	if !running {
		t.lines[key] = nil
		t.mu.Unlock()
		return nil, true
	}
	w = &waiter[W]{ctx: ctx, op: op, lead: make(chan []*waiter[W], 1), done: make(chan struct{})}
	t.lines[key] = append(queue, w)
	t.mu.Unlock()

	select {
	case turn := <-w.lead:
		run(turn)
	case <-w.done:
	case <-ctx.Done():
		t.mu.Lock()
		if !w.taken {
			t.lines[key] = slices.DeleteFunc(t.lines[key], func(o *waiter[W]) bool { return o == w })
			t.mu.Unlock()
			w.err = ctx.Err()
			return w, false
		}
		t.mu.Unlock()
		select {
		case turn := <-w.lead:
			run(turn)
		case <-w.done:
		}
	}
	<-w.done
	return w, false
}

// next hands key's next turn to the first of its waiters, with every waiter (at most
// maxHotBatch) as its turn, or forgets key when none waits. A waiter whose context has ended is
// dropped with its context's error.
func (t *turns[K, W]) next(key K) {
	t.mu.Lock()
	queue := t.lines[key]
	var turn []*waiter[W]
	for len(queue) > 0 && len(turn) < maxHotBatch {
		w := queue[0]
		queue = queue[1:]
		w.taken = true
		if err := w.ctx.Err(); err != nil {
			w.err = err
			close(w.done)
			continue
		}
		turn = append(turn, w)
	}
	if len(turn) == 0 {
		delete(t.lines, key)
		t.mu.Unlock()
		return
	}
	t.lines[key] = queue
	t.mu.Unlock()
	turn[0].lead <- turn
}

// line reports whether an operation of key is running, and how many wait (tests).
func (t *turns[K, W]) line(key K) (running bool, queued int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q, ok := t.lines[key]
	return ok, len(q)
}
