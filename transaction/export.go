package transaction

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agenttrust/service/event"
)

// CSVHeader is the export's header row: the GraphQL Transaction fields.
var CSVHeader = []string{"id", "fromAgent", "toAgent", "action", "amount", "currency", "memo", "status", "reversalOf", "reversedBy", "reason", "createdAt"}

// Encoder writes export rows incrementally, so a caller can feed it batch by batch.
type Encoder struct {
	format Format
	buf    bytes.Buffer
	csv    *csv.Writer
	count  int
}

// NewEncoder starts an export in format (csv or json).
func NewEncoder(format Format) (*Encoder, error) {
	e := &Encoder{format: format}
	switch format {
	case CSV:
		e.csv = csv.NewWriter(&e.buf)
		if err := e.csv.Write(CSVHeader); err != nil {
			return nil, err
		}
	case JSON:
		e.buf.WriteByte('[')
	default:
		return nil, fmt.Errorf("unknown export format %q", format)
	}
	return e, nil
}

// Write appends one transaction.
func (e *Encoder) Write(t *Transaction) error {
	e.count++
	if e.format == CSV {
		return e.csv.Write([]string{t.ID, t.FromAgent, t.ToAgent, t.Action, t.Amount.String(), string(t.Currency),
			CSVCell(deref(t.Memo)), string(t.Status), deref(t.ReversalOf), deref(t.ReversedBy), CSVCell(deref(t.Reason)),
			event.FormatTime(t.CreatedAt)})
	}
	if e.count > 1 {
		e.buf.WriteByte(',')
	}
	b, err := json.Marshal(exportRow(t))
	if err != nil {
		return fmt.Errorf("encode export row: %w", err)
	}
	e.buf.Write(b)
	return nil
}

// Finish closes the encoding and returns the export.
func (e *Encoder) Finish() (*Export, error) {
	if e.format == CSV {
		e.csv.Flush()
		if err := e.csv.Error(); err != nil {
			return nil, err
		}
	} else {
		e.buf.WriteByte(']')
	}
	return &Export{Format: e.format, Content: e.buf.String(), Count: e.count}, nil
}

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
}

func exportRow(t *Transaction) row {
	return row{ID: t.ID, FromAgent: t.FromAgent, ToAgent: t.ToAgent, Action: t.Action, Amount: t.Amount,
		Currency: string(t.Currency), Memo: t.Memo, Status: string(t.Status), ReversalOf: t.ReversalOf,
		ReversedBy: t.ReversedBy, Reason: t.Reason, CreatedAt: event.FormatTime(t.CreatedAt)}
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
