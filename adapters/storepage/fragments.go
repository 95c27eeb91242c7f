package storepage

import (
	"bytes"
	"html/template"
	"strings"
	"sync"
)

// fragments keeps rendered pieces of the list pages (a reward's card, the filter form's
// options), keyed by everything they show, so that the same card in the same language at the
// same price is escaped once, not at every request. A key names its content whole, so an entry
// is never stale; the cache starts again empty past maxFragments entries.
type fragments struct {
	mu sync.RWMutex
	m  map[string]template.HTML
}

// maxFragments bounds the fragments kept: a few hundred bytes each.
const maxFragments = 50_000

var rendered = &fragments{m: map[string]template.HTML{}}

// get returns the fragment of key, rendering it with the template name and data on a miss.
func (f *fragments) get(key, name string, data any) (template.HTML, error) {
	f.mu.RLock()
	h, ok := f.m[key]
	f.mu.RUnlock()
	if ok {
		return h, nil
	}
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		return "", err
	}
	h = template.HTML(buf.String()) // html/template escaped every value in it
	f.mu.Lock()
	if len(f.m) >= maxFragments {
		f.m = map[string]template.HTML{}
	}
	f.m[key] = h
	f.mu.Unlock()
	return h, nil
}

// cardsHTML renders cards, each from the fragments.
func cardsHTML(cs []card) ([]template.HTML, error) {
	out := make([]template.HTML, len(cs))
	var k strings.Builder
	for i, c := range cs {
		k.Reset()
		k.WriteString("card\x00")
		k.WriteString(c.URL)
		k.WriteByte(0)
		k.WriteString(c.Name)
		k.WriteByte(0)
		k.WriteString(c.Brand)
		k.WriteByte(0)
		k.WriteString(c.Image)
		k.WriteByte(0)
		k.WriteString(formatCoins(c.Coins))
		if c.From {
			k.WriteString("+")
		}
		h, err := rendered.get(k.String(), "card", c)
		if err != nil {
			return nil, err
		}
		out[i] = h
	}
	return out, nil
}

// optionsHTML renders a select's options from the fragments.
func optionsHTML(opts []option) (template.HTML, error) {
	var k strings.Builder
	k.WriteString("options")
	for _, o := range opts {
		k.WriteByte(0)
		k.WriteString(o.Value)
		k.WriteByte(1)
		k.WriteString(o.Label)
		if o.Selected {
			k.WriteByte(2)
		}
	}
	return rendered.get(k.String(), "options", opts)
}
