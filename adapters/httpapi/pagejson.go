package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/danielgtaylor/huma/v2"
	gojson "github.com/goccy/go-json"
)

// EncodedAs is an item of a Page that is written as another value (the store's list items: one
// of two shapes). encoding/json checks and compacts whatever a MarshalJSON method returns, which
// for a page of large items costs as much again as encoding them; the API's JSON format writes a
// page of EncodedAs items with one encoder instead, in the very bytes MarshalJSON would give
// (HTML characters escaped, as json.Marshal does).
type EncodedAs interface {
	EncodedAs() any
}

// PreEncoded is an EncodedAs item that may have its JSON at hand: EncodedJSON returns the very
// bytes json.Marshal gives for EncodedAs() (what an Encoder writes, without its newline), or nil
// when it has none (the page's encoder writes the item then).
type PreEncoded interface {
	EncodedJSON() []byte
}

// jsonPage is a body the API's JSON format writes itself.
type jsonPage interface {
	writeJSON(buf *bytes.Buffer) (bool, error)
}

// writeJSON writes the page as encoding/json writes it, when its items are EncodedAs; false
// when they are not (encoding/json writes it then).
func (p Page[T]) writeJSON(buf *bytes.Buffer) (bool, error) {
	if _, ok := any(*new(T)).(EncodedAs); !ok {
		return false, nil
	}
	enc := json.NewEncoder(buf)
	if p.Items == nil {
		buf.WriteString(`{"items":null`)
	} else {
		buf.WriteString(`{"items":[`)
		for i, item := range p.Items {
			if i > 0 {
				buf.WriteByte(',')
			}
			if pre, ok := any(item).(PreEncoded); ok {
				if b := pre.EncodedJSON(); b != nil {
					buf.Write(b)
					continue
				}
			}
			if err := enc.Encode(any(item).(EncodedAs).EncodedAs()); err != nil {
				return false, err
			}
			buf.Truncate(buf.Len() - 1) // Encode ends each value with a newline
		}
		buf.WriteByte(']')
	}
	var num [20]byte
	buf.WriteString(`,"page":`)
	buf.Write(strconv.AppendInt(num[:0], int64(p.Page), 10))
	buf.WriteString(`,"limit":`)
	buf.Write(strconv.AppendInt(num[:0], int64(p.Limit), 10))
	buf.WriteString(`,"total":`)
	buf.Write(strconv.AppendInt(num[:0], p.Total, 10))
	buf.WriteString("}\n") // as json.Encoder ends a value
	return true, nil
}

var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// withPageJSON makes a JSON format write pages of EncodedAs items itself, and everything else
// with fastJSON.
func withPageJSON(f huma.Format) huma.Format {
	marshal := fastJSON(f.Marshal)
	f.Marshal = func(w io.Writer, v any) error {
		p, ok := v.(jsonPage)
		if !ok {
			return marshal(w, v)
		}
		buf := pageBuffers.Get().(*bytes.Buffer)
		defer pageBuffers.Put(buf)
		buf.Reset()
		if done, err := p.writeJSON(buf); err != nil || !done {
			if err != nil {
				return err
			}
			return marshal(w, v)
		}
		_, err := w.Write(buf.Bytes())
		return err
	}
	return f
}

// fastJSON writes a body as huma's JSON format does (json.Encoder, HTML characters as they are,
// a newline after the value), with github.com/goccy/go-json, which writes the same bytes in about
// half the time: encoding was two fifths of the CPU of a touchpoint tree's answer (50 nodes).
// When VerifyJSON is on (the tests), each body is also written by standard, the format's own
// Marshal, and a body the two write differently is an error.
func fastJSON(standard func(io.Writer, any) error) func(io.Writer, any) error {
	return func(w io.Writer, v any) error {
		buf := pageBuffers.Get().(*bytes.Buffer)
		defer pageBuffers.Put(buf)
		buf.Reset()
		enc := gojson.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return standard(w, v) // encoding/json's own error, or its bytes
		}
		if verifyJSON.Load() {
			var want bytes.Buffer
			if err := standard(&want, v); err != nil || !bytes.Equal(want.Bytes(), buf.Bytes()) {
				return fmt.Errorf("httpapi: go-json wrote %T as %q, encoding/json as %q (%v)", v, buf.Bytes(), want.Bytes(), err)
			}
		}
		_, err := w.Write(buf.Bytes())
		return err
	}
}

var verifyJSON atomic.Bool

// VerifyJSON makes every JSON body also be written by encoding/json, and a body the two write
// differently an error (tests turn it on).
func VerifyJSON(on bool) { verifyJSON.Store(on) }
