package db

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/agenttrust/service/money"
)

// partyOIDs are the types of partyColumns, in order, then the key check's.
var partyOIDs = [...]uint32{pgtype.TextOID, pgtype.TextOID, pgtype.TextArrayOID, pgtype.TextOID, pgtype.TextOID,
	pgtype.TextOID, pgtype.TextOID, pgtype.TextOID, pgtype.TimestamptzOID, pgtype.Float8OID, pgtype.Float8OID,
	pgtype.Float8OID, pgtype.Float8OID, pgtype.Float8OID, pgtype.Int8OID, pgtype.Int8OID, pgtype.TimestamptzOID,
	pgtype.Int4OID, pgtype.TextOID, pgtype.TimestamptzOID, pgtype.BoolOID}

// rawParties reports whether rows of partyColumns (and withKey's column)
// come with the types partyOIDs names, in the binary format but for text, so that
// decodeParty can read them without pgx's per-query scan plans: the read is
// evaluateTrust's, on every call, and planning and scanning 20 columns
// through pgx cost more than the policy. A connection that sends them
// otherwise (the simple protocol) is read with rows.Scan.
func rawParties(rows pgx.Rows, withKey bool) bool {
	fields := rows.FieldDescriptions()
	n := len(partyOIDs) - 1
	if withKey {
		n++
	}
	if len(fields) != n {
		return false
	}
	for i, f := range fields {
		// text is the same bytes in either format (pgx asks for it as text)
		if f.DataTypeOID != partyOIDs[i] || f.Format != pgx.BinaryFormatCode && f.DataTypeOID != pgtype.TextOID {
			return false
		}
	}
	return true
}

// decodeParty reads one row of partyColumns in the binary format (see
// rawParties), and with withKey the key's liveness after them into live.
func decodeParty(raw [][]byte, withKey bool, live *bool) (*agentRow, error) {
	var (
		r    agentRow
		tc   = &r.TC
		errs []error
		err  error
	)
	req := func(i int) []byte {
		if raw[i] == nil {
			errs = append(errs, fmt.Errorf("column %d is null", i))
		}
		return raw[i]
	}
	r.ID, r.OrgID = string(req(0)), string(req(1))
	if err := arrayElements(req(2), func(e []byte) { r.AuthorizedActions = append(r.AuthorizedActions, string(e)) }); err != nil {
		errs = append(errs, fmt.Errorf("authorized_actions: %w", err))
	}
	if r.AuthorizedActions == nil {
		r.AuthorizedActions = []string{} // as rows.Scan gives an empty array
	}
	var daily *string
	if raw[4] != nil {
		d := string(raw[4])
		daily = &d
	}
	if r.SpendingLimit, r.DailyLimit, err = parseLimits(string(req(3)), daily); err != nil {
		errs = append(errs, err)
	}
	r.Currency = money.Currency(constant(req(5)))
	r.Environment, r.Status = constant(req(6)), constant(req(7))
	tc.EvidenceAt = decodeTime(req(8), &errs)
	for i, f := range [...]*float64{&tc.Completed, &tc.Failures, &tc.LimitRefusals, &tc.Reversals, &tc.DisputingOrgs} {
		*f = math.Float64frombits(decodeUint(req(9+i), 8, &errs))
	}
	tc.OpenDisputes, tc.CounterpartyOrgs = int64(decodeUint(req(14), 8, &errs)), int64(decodeUint(req(15), 8, &errs))
	if raw[16] != nil {
		t := decodeTime(raw[16], &errs)
		tc.FirstExternalAt = &t
	}
	tc.Score = int(int32(decodeUint(req(17), 4, &errs)))
	tc.Assessment = string(req(18))
	tc.UpdatedAt = decodeTime(req(19), &errs)
	if withKey {
		*live = decodeUint(req(20), 1, &errs) != 0
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("scan agent %s: %w", r.ID, errors.Join(errs...))
	}
	return &r, nil
}

// decodeUint reads a big-endian integer of size bytes (int2, int4, int8,
// float8's bits, bool).
func decodeUint(b []byte, size int, errs *[]error) uint64 {
	if len(b) != size {
		if b != nil {
			*errs = append(*errs, fmt.Errorf("%d bytes where %d were expected", len(b), size))
		}
		return 0
	}
	switch size {
	case 1:
		return uint64(b[0])
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	default:
		return binary.BigEndian.Uint64(b)
	}
}

// Microseconds from the Unix epoch to Postgres' (2000-01-01 UTC).
const pgEpochMicros = 946_684_800 * 1_000_000

// decodeTime reads a binary timestamptz as pgx does (microseconds since
// 2000-01-01 UTC, in the local zone); ±infinity is an error, as pgx's is
// for a time.Time.
func decodeTime(b []byte, errs *[]error) time.Time {
	us := int64(decodeUint(b, 8, errs))
	if us == math.MaxInt64 || us == math.MinInt64 {
		*errs = append(*errs, errors.New("infinite timestamp"))
		return time.Time{}
	}
	return time.Unix(pgEpochMicros/1_000_000+us/1_000_000, (pgEpochMicros%1_000_000*1_000)+(us%1_000_000*1_000))
}

// arrayElements calls f with each element of a one-dimensional text[] in
// Postgres' binary array format: ndim, flags, element type, (length, lower
// bound) per dimension, then each element as its length and bytes. A NULL
// element is an error.
func arrayElements(b []byte, f func(elem []byte)) error {
	if len(b) < 12 {
		return errors.New("short array")
	}
	switch ndim := binary.BigEndian.Uint32(b); ndim {
	case 0:
		return nil
	case 1:
	default:
		return fmt.Errorf("%d-dimensional array", ndim)
	}
	if len(b) < 20 {
		return errors.New("short array")
	}
	n, p := int(binary.BigEndian.Uint32(b[12:])), 20
	for range n {
		if len(b) < p+4 {
			return errors.New("short array")
		}
		l := int(int32(binary.BigEndian.Uint32(b[p:])))
		p += 4
		if l < 0 || len(b) < p+l {
			return errors.New("null or short array element")
		}
		f(b[p : p+l])
		p += l
	}
	return nil
}
