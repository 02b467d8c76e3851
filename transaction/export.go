package transaction

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

// CSVHeader is the export's header row: every GraphQL Transaction field, by
// its GraphQL name.
var CSVHeader = []string{"id", "fromAgent", "toAgent", "action", "amount", "currency", "memo", "status", "reversalOf",
	"reversedBy", "reason", "createdAt", "expiresAt", "decidedAt", "decidedBy", "mandateId"}

// Encoder writes export rows to a writer as they come, so that a caller can
// feed it batch by batch and hold no more than a batch: CSV with a header
// row, or JSON as one array of objects (the same bytes either way as the
// GraphQL field's content).
type Encoder struct {
	format Format
	w      *bufio.Writer
	csv    *csv.Writer
	count  int
}

// NewEncoder starts an export in format (csv or json) on w. Errors: an
// unknown format, or w's.
func NewEncoder(w io.Writer, format Format) (*Encoder, error) {
	e := &Encoder{format: format, w: bufio.NewWriter(w)}
	switch format {
	case CSV:
		e.csv = csv.NewWriter(e.w)
		if err := e.csv.Write(CSVHeader); err != nil {
			return nil, fmt.Errorf("write export header: %w", err)
		}
	case JSON:
		e.w.WriteByte('[')
	default:
		return nil, fmt.Errorf("unknown export format %q", format)
	}
	return e, nil
}

// Write appends one transaction; bytes reach the writer as its buffer fills.
func (e *Encoder) Write(t *Transaction) error {
	e.count++
	if e.format == CSV {
		return e.csv.Write([]string{t.ID, t.FromAgent, t.ToAgent, t.Action, t.Amount.String(), string(t.Currency),
			CSVCell(deref(t.Memo)), string(t.Status), deref(t.ReversalOf), deref(t.ReversedBy), CSVCell(deref(t.Reason)),
			event.FormatTime(t.CreatedAt), deref(formatTime(t.ExpiresAt)), deref(formatTime(t.DecidedAt)), deref(t.DecidedBy),
			deref(t.MandateID)})
	}
	if e.count > 1 {
		e.w.WriteByte(',')
	}
	b, err := json.Marshal(exportRow(t))
	if err != nil {
		return fmt.Errorf("encode export row: %w", err)
	}
	_, err = e.w.Write(b)
	return err
}

// Count is how many transactions were written.
func (e *Encoder) Count() int { return e.count }

// Flush hands everything written so far to the writer.
func (e *Encoder) Flush() error {
	if e.csv != nil {
		e.csv.Flush()
		if err := e.csv.Error(); err != nil {
			return err
		}
	}
	return e.w.Flush()
}

// Close ends the encoding (the JSON array's bracket) and flushes it.
func (e *Encoder) Close() error {
	if e.format == JSON {
		e.w.WriteByte(']')
	}
	return e.Flush()
}

// Collect encodes the batches read yields into format, in memory, and
// refuses with ExportTooLarge as soon as the content would pass maxBytes,
// so that memory stays bounded whatever the rows hold. read hands every
// batch to its argument and returns that function's first error.
func Collect(format Format, maxBytes int, read func(each func([]*Transaction) error) error) (*Export, error) {
	buf := &Buffer{Max: maxBytes}
	enc, err := NewEncoder(buf, format)
	if err != nil {
		return nil, failure.Invalid("format", "must be csv or json")
	}
	err = read(func(batch []*Transaction) error {
		for _, t := range batch {
			if err := enc.Write(t); err != nil {
				return err
			}
		}
		return enc.Flush()
	})
	if err == nil {
		err = enc.Close()
	}
	if errors.Is(err, ErrTooLarge) {
		return nil, ExportTooLarge(maxBytes)
	}
	if err != nil {
		return nil, err
	}
	return &Export{Format: format, Content: buf.String(), Count: enc.Count()}, nil
}

// ErrTooLarge is Buffer's error once more than its bound was written.
var ErrTooLarge = errors.New("export larger than its bound")

// Buffer is an io.Writer that keeps at most Max bytes and refuses the write
// that would pass it with ErrTooLarge: an answer built in memory stays
// bounded whatever the rows hold.
type Buffer struct {
	Max int
	buf bytes.Buffer
}

// Write appends p, or refuses with ErrTooLarge past Max.
func (b *Buffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.Max {
		return 0, ErrTooLarge
	}
	return b.buf.Write(p)
}

// String returns what was written.
func (b *Buffer) String() string { return b.buf.String() }

// row is the JSON export shape: the GraphQL field names, amounts as exact numbers.
type row struct {
	ID         string  `json:"id"`
	FromAgent  string  `json:"fromAgent"`
	ToAgent    string  `json:"toAgent"`
	Action     string  `json:"action"`
	Amount     any     `json:"amount"`
	Currency   string  `json:"currency"`
	Memo       *string `json:"memo"`
	Status     string  `json:"status"`
	ReversalOf *string `json:"reversalOf"`
	ReversedBy *string `json:"reversedBy"`
	Reason     *string `json:"reason"`
	CreatedAt  string  `json:"createdAt"`
	ExpiresAt  *string `json:"expiresAt"`
	DecidedAt  *string `json:"decidedAt"`
	DecidedBy  *string `json:"decidedBy"`
	MandateID  *string `json:"mandateId"`
}

func exportRow(t *Transaction) row {
	return row{ID: t.ID, FromAgent: t.FromAgent, ToAgent: t.ToAgent, Action: t.Action, Amount: t.Amount,
		Currency: string(t.Currency), Memo: t.Memo, Status: string(t.Status), ReversalOf: t.ReversalOf,
		ReversedBy: t.ReversedBy, Reason: t.Reason, CreatedAt: event.FormatTime(t.CreatedAt),
		ExpiresAt: formatTime(t.ExpiresAt), DecidedAt: formatTime(t.DecidedAt), DecidedBy: t.DecidedBy, MandateID: t.MandateID}
}

// CSVCell neutralises a free-text cell a spreadsheet would run as a formula
// (OWASP's CSV injection advice): a cell starting with = + - @, tab or
// carriage return gets a leading apostrophe. A memo comes from the
// counterparty too, so it must not execute in the reader's spreadsheet. The
// JSON export keeps the text unchanged.
func CSVCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
