package till

import (
	"context"
	"net/http"
	"net/url"
)

// Iter walks a list page by page, fetching the next page when the current one is used up:
//
//	it := client.Events.List(ctx, &till.EventListParams{Type: till.EventPaymentSucceeded})
//	for it.Next() {
//		event := it.Current()
//		…
//	}
//	if err := it.Err(); err != nil { … }
type Iter[T any] struct {
	ctx     context.Context
	fetch   func(ctx context.Context, startingAfter string) (page[T], error)
	idOf    func(T) string
	items   []T
	current T
	after   string
	more    bool
	started bool
	err     error
}

// page is one answer of a list endpoint: {"data":[…],"hasMore":…}.
type page[T any] struct {
	Data    []T  `json:"data"`
	HasMore bool `json:"hasMore"`
}

// Next advances to the next item, fetching a page when needed; false at the end or on an error.
func (it *Iter[T]) Next() bool {
	if it.err != nil {
		return false
	}
	for len(it.items) == 0 {
		if it.started && !it.more {
			return false
		}
		p, err := it.fetch(it.ctx, it.after)
		it.started = true
		if err != nil {
			it.err = err
			return false
		}
		it.items, it.more = p.Data, p.HasMore && len(p.Data) > 0
		if len(p.Data) > 0 {
			it.after = it.idOf(p.Data[len(p.Data)-1])
		}
	}
	it.current, it.items = it.items[0], it.items[1:]
	return true
}

// Current is the item Next moved to.
func (it *Iter[T]) Current() T { return it.current }

// Err is the error that stopped the iteration, if any.
func (it *Iter[T]) Err() error { return it.err }

// list makes an iterator over a cursor-paged list endpoint: query is the first page's, and each next
// page starts after the last id seen.
func list[T any](ctx context.Context, c *Client, path string, query url.Values, idOf func(T) string) *Iter[T] {
	first := query.Get("starting_after")
	return &Iter[T]{
		ctx:   ctx,
		idOf:  idOf,
		after: first,
		fetch: func(ctx context.Context, after string) (page[T], error) {
			q := url.Values{}
			for k, v := range query {
				q[k] = v
			}
			if after != "" {
				q.Set("starting_after", after)
			}
			p, err := send[page[T]](ctx, c, http.MethodGet, path, nil, nil, "", q)
			if err != nil {
				return page[T]{}, err
			}
			return *p, nil
		},
	}
}
