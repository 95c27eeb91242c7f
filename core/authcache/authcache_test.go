package authcache

import (
	"testing"
	"time"
)

func TestPutAfterDropKeepsNothing(t *testing.T) {
	c := New[string, int](10)
	gen := c.Generation()
	c.Drop(func(string, int) bool { return true }) // a revocation while the lookup was in flight
	c.Put("k", 1, gen)
	if _, ok := c.Get("k"); ok {
		t.Fatal("a lookup in flight during a Drop was kept")
	}
	c.Put("k", 2, c.Generation())
	if v, ok := c.Get("k"); !ok || v != 2 {
		t.Fatalf("Get = %v, %v; want 2, true", v, ok)
	}
}

func TestDropForgetsMatchesOnly(t *testing.T) {
	c := New[string, int](10)
	gen := c.Generation()
	c.Put("a", 1, gen)
	c.Put("b", 2, gen)
	c.Drop(func(_ string, v int) bool { return v == 1 })
	if _, ok := c.Get("a"); ok {
		t.Fatal("a dropped lookup is still there")
	}
	if _, ok := c.Get("b"); !ok {
		t.Fatal("a lookup that did not match was dropped")
	}
}

func TestLookupsExpire(t *testing.T) {
	c := New[string, int](10)
	c.Put("k", 1, c.Generation())
	time.Sleep(TTL + 100*time.Millisecond)
	if _, ok := c.Get("k"); ok {
		t.Fatal("a lookup outlived TTL")
	}
}
