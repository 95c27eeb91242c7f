package postgres

import "fmt"

// The converters below finish a repository method that reads rows: they turn a missing row
// into the module's own error, wrap any other error with what the query did, and convert rows
// with the module's toCore function. format and args say what the query did ("get game %s");
// they are formatted only when there is an error to wrap.

// toCoreOne returns toCore(row), or notFound when the query returned no row.
func toCoreOne[R, T any](row R, err, notFound error, toCore func(R) T, format string, args ...any) (T, error) {
	if err != nil {
		var zero T
		if isNoRows(err) {
			return zero, notFound
		}
		return zero, wrapQuery(err, format, args)
	}
	return toCore(row), nil
}

// toCoreAll returns toCore of each row, in order; no rows is an empty slice, never nil.
func toCoreAll[R, T any](rows []R, err error, toCore func(R) T, format string, args ...any) ([]T, error) {
	if err != nil {
		return nil, wrapQuery(err, format, args)
	}
	out := make([]T, len(rows))
	for i, row := range rows {
		out[i] = toCore(row)
	}
	return out, nil
}

// toCoreAllOrErr is toCoreAll for a toCore that can fail (it decodes a column): its first
// error is the answer.
func toCoreAllOrErr[R, T any](rows []R, err error, toCore func(R) (T, error), format string, args ...any) ([]T, error) {
	if err != nil {
		return nil, wrapQuery(err, format, args)
	}
	out := make([]T, len(rows))
	for i, row := range rows {
		if out[i], err = toCore(row); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// oneChanged returns the outcome of a statement that changes one row: notFound when it changed
// none.
func oneChanged(n int64, err, notFound error, format string, args ...any) error {
	if err != nil {
		return wrapQuery(err, format, args)
	}
	if n == 0 {
		return notFound
	}
	return nil
}

// wrapErr finishes a method that runs statements for their effect: nil, or err wrapped with
// what the statement did.
func wrapErr(err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func wrapQuery(err error, format string, args []any) error {
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}
