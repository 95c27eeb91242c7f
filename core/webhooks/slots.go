package webhooks

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Tuning of the per-configuration cap on attempts in flight (MaxInFlight).
const (
	// slotWait is the longest a delivery waits for a slot of its configuration. It waits only
	// when a slot is expected within that time: a healthy receiver frees its slots within
	// milliseconds, so a burst to it is sent without delay, while a slow or stalled one holds
	// its waiters no longer than this.
	slotWait = 500 * time.Millisecond
	// minPutOff and maxPutOff bound how long a delivery that gets no slot is put off.
	minPutOff = 500 * time.Millisecond
	maxPutOff = 15 * time.Second
)

// slots caps the attempts in flight per configuration in this process. Its zero value is not
// ready; use newSlots.
type slots struct {
	perConfig int
	mu        sync.Mutex
	configs   map[uuid.UUID]*configSlots
}

// configSlots are one configuration's slots. They exist while a delivery holds or waits for one.
type configSlots struct {
	sem   chan struct{} // a token per attempt in flight
	users int           // holders and waiters, under slots.mu

	mu       sync.Mutex
	waiting  int
	answered time.Time     // when an attempt last ended (at first: when the slots were made)
	turn     time.Duration // attempts' duration, a moving average
	next     time.Time     // when the deliveries put off so far are expected to have had a slot
}

func newSlots(perConfig int) *slots {
	return &slots{perConfig: perConfig, configs: map[uuid.UUID]*configSlots{}}
}

// take takes a slot of configuration id and returns the function that gives it back. When
// none is free and none is expected within slotWait, or none came, ok is false and retryAfter
// says when to come back: paced so that the deliveries put off return about when the receiver
// can take them, with jitter, between minPutOff and maxPutOff (a quarter more with jitter).
func (s *slots) take(ctx context.Context, id uuid.UUID) (give func(), retryAfter time.Duration, ok bool) {
	c := s.enter(id)
	select {
	case c.sem <- struct{}{}:
		return s.giver(id, c), 0, true
	default:
	}
	c.mu.Lock()
	turn := c.turnAt(time.Now())
	if time.Duration(c.waiting+1)*turn/time.Duration(s.perConfig) <= slotWait {
		c.waiting++
		c.mu.Unlock()
		got := c.await(ctx)
		c.mu.Lock()
		c.waiting--
		if got {
			c.mu.Unlock()
			return s.giver(id, c), 0, true
		}
		turn = c.turnAt(time.Now())
	}
	now := time.Now()
	// Each delivery put off takes the next free turn of a slot, as far ahead as maxPutOff.
	ahead := min(max(c.next.Sub(now), 0)+turn/time.Duration(s.perConfig), maxPutOff)
	c.next = now.Add(ahead)
	retryAfter = max(ahead, minPutOff)
	c.mu.Unlock()
	s.leave(id, c)
	return nil, retryAfter + rand.N(retryAfter/4), false
}

// turnAt is how long an attempt of the configuration takes: the recent average, or longer when
// no attempt has ended for longer than that (a receiver that stopped answering). Under c.mu.
func (c *configSlots) turnAt(now time.Time) time.Duration {
	return max(c.turn, now.Sub(c.answered))
}

// await waits up to slotWait for a slot.
func (c *configSlots) await(ctx context.Context) bool {
	t := time.NewTimer(slotWait)
	defer t.Stop()
	select {
	case c.sem <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// giver returns the function that gives back a slot just taken, and learns how long the
// attempt took.
func (s *slots) giver(id uuid.UUID, c *configSlots) func() {
	start := time.Now()
	return func() {
		took := time.Since(start)
		<-c.sem
		c.mu.Lock()
		c.answered = time.Now()
		if c.turn == 0 {
			c.turn = took
		} else {
			c.turn = (3*c.turn + took) / 4
		}
		c.mu.Unlock()
		s.leave(id, c)
	}
}

// enter returns configuration id's slots, made if nobody holds or waits for one.
func (s *slots) enter(id uuid.UUID) *configSlots {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.configs[id]
	if c == nil {
		c = &configSlots{sem: make(chan struct{}, s.perConfig), answered: time.Now()}
		s.configs[id] = c
	}
	c.users++
	return c
}

// leave forgets a configuration's slots once nobody holds or waits for one.
func (s *slots) leave(id uuid.UUID, c *configSlots) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.users--; c.users == 0 {
		delete(s.configs, id)
	}
}
