package paging

import "github.com/agenttrust/service/failure"

// Args are a connection field's paging arguments as an operation gives
// them: the contract's limit and after, and the Relay synonyms and
// backward arguments first, last and before. LimitSet says limit was
// written in the operation (otherwise the schema's default fills it).
type Args struct {
	Limit, First, Last *int
	LimitSet           bool
	After, Before      *string
}

// Window is the page Args ask for: Limit rows after After (the list's first
// rows when empty), or with Backward the Limit rows just before Before (the
// list's last rows when empty). Either way the rows come in the list's order.
type Window struct {
	Limit         int
	After, Before string
	Backward      bool
}

// Window resolves the arguments. It returns a ValidationFailed error when
// limit and first are both given, when a backward argument (last, before) is
// mixed with a forward one (limit, first, after), or when the page size is
// outside 1..Max, naming the argument that set it.
func (a Args) Window() (Window, error) {
	if a.LimitSet && a.First != nil {
		return Window{}, failure.Invalid("first", "is a synonym of limit: give one of them, not both")
	}
	after, before := deref(a.After), deref(a.Before)
	if a.Last == nil && before == "" {
		w := Window{Limit: Limit(a.Limit), After: after}
		field := "limit"
		if a.First != nil {
			w.Limit, field = *a.First, "first"
		}
		return w, checkField(field, w.Limit)
	}
	if a.LimitSet || a.First != nil || after != "" {
		return Window{}, failure.Invalid("last", "pages backwards (last, before): not with limit, first or after")
	}
	w := Window{Limit: Limit(a.Last), Before: before, Backward: true}
	return w, checkField("last", w.Limit)
}

// Flags are a page's hasNextPage and hasPreviousPage: more says the store
// read a row past the page in the direction it read. A forward page after
// a cursor has rows before it (at least the cursor's own), a backward page
// before a cursor has rows after it.
func (w Window) Flags(more bool) (hasNext, hasPrevious bool) {
	if w.Backward {
		return w.Before != "", more
	}
	return more, w.After != ""
}

// Cursor is the cursor the page is read from: After, or Before backwards.
func (w Window) Cursor() string {
	if w.Backward {
		return w.Before
	}
	return w.After
}

func checkField(field string, n int) error {
	if n < 1 || n > Max {
		return failure.Invalid(field, "must be between 1 and %d (got %d)", Max, n)
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
