package httpapi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
)

type shapeOne struct {
	Name  string   `json:"name"`
	Price *float64 `json:"price"`
	Tags  []string `json:"tags,omitempty"`
}

type shapeTwo struct {
	Code  string         `json:"code"`
	Extra map[string]int `json:"extra"`
}

// item is a page item written as one of two shapes, as the store's list items are.
type item struct{ shape any }

func (i item) MarshalJSON() ([]byte, error) { return json.Marshal(i.shape) }
func (i item) EncodedAs() any               { return i.shape }

// preItem is an item with its JSON at hand, or not (nil).
type preItem struct {
	item
	json []byte
}

func (i preItem) EncodedJSON() []byte { return i.json }

// A page of EncodedAs items is written in the very bytes encoding/json writes through their
// MarshalJSON, HTML escaping and all; other bodies are left to encoding/json.
func TestPageJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	price := 12.5
	fast := withPageJSON(huma.DefaultJSONFormat)
	written, err := Page[item]{}.writeJSON(&bytes.Buffer{})
	require.NoError(t, err)
	require.True(t, written, "a page of EncodedAs items is written by the format itself")
	for name, body := range map[string]any{
		"items": Page[item]{Items: []item{
			{shape: shapeOne{Name: "Fish & <Chips> \u2028", Price: &price, Tags: []string{"a", "é"}}},
			{shape: shapeTwo{Code: "X", Extra: map[string]int{"b": 2, "a": 1}}},
			{shape: shapeOne{Name: "no price"}},
		}, Page: 3, Limit: 20, Total: 1234567890123},
		"pre-encoded": Page[preItem]{Items: []preItem{
			{item: item{shape: shapeOne{Name: "<a>"}}, json: []byte(`{"name":"\u003ca\u003e","price":null}`)},
			{item: item{shape: shapeTwo{Code: "Z", Extra: map[string]int{"z": 1}}}},
		}, Page: 2, Limit: 2, Total: 9},
		"one item":   Page[item]{Items: []item{{shape: shapeTwo{Code: "Y"}}}, Page: 1, Limit: 1, Total: 1},
		"no items":   Page[item]{Items: []item{}, Page: 1, Limit: 10},
		"nil items":  Page[item]{Page: 1, Limit: 10},
		"other page": Page[shapeOne]{Items: []shapeOne{{Name: "<b>"}}, Page: 1, Limit: 10, Total: 1},
		"other body": map[string]any{"x": "<y>"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var want, got bytes.Buffer
			require.NoError(t, huma.DefaultJSONFormat.Marshal(&want, body))
			require.NoError(t, fast.Marshal(&got, body))
			require.Equal(t, want.String(), got.String())
		})
	}
}
