package db

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/keyring"
)

// verifyBatch is how many audit entries verification reads per statement.
const verifyBatch = 1000

type checkpointRow struct {
	bun.BaseModel `bun:"table:audit_checkpoints"`
	AgentID       string `bun:"agent_id,pk"`
	Sequence      int    `bun:"sequence"`
	Hash          string `bun:"hash"`
	Fingerprint   string `bun:"fingerprint"`
	MAC           string `bun:"mac"`
}

// SetKeys sets the server key ring (ENCRYPTION_KEY) that signs chain heads
// and verification checkpoints. Until it is called a random key is used,
// which does not survive a restart. Signatures under any key of the ring
// verify, so keys rotate like ENCRYPTION_KEY does.
func (d *DB) SetKeys(r *keyring.Ring) { d.keys = r }

func randomRing() *keyring.Ring {
	r, err := keyring.Parse(keyring.Generate())
	if err != nil {
		panic(err) // a generated key always parses
	}
	return r
}

// sign signs a chain position under the ring's first key.
func (d *DB) sign(agentID string, seq int, hash, fingerprint string) string {
	return hex.EncodeToString(d.keys.Sign(agent.ChainSignPurpose, agent.HeadMessage(agentID, seq, hash, fingerprint)))
}

// signed reports whether mac signs the chain position under any key of the ring.
func (d *DB) signed(mac, agentID string, seq int, hash, fingerprint string) bool {
	sig, err := hex.DecodeString(mac)
	return err == nil && d.keys.Verify(agent.ChainSignPurpose, agent.HeadMessage(agentID, seq, hash, fingerprint), sig)
}

func (d *DB) headMAC(a *agentRow) string { return d.sign(a.ID, a.AuditSeq, a.AuditHead, "") }

// SignUnsignedHeads signs the chain heads written before heads were signed
// (trust on first use: whatever those chains hold now is what later
// verifications compare with). It returns how many it signed.
func (d *DB) SignUnsignedHeads(ctx context.Context) (int, error) {
	var rows []agentRow
	if err := d.bun.NewSelect().Model(&rows).Column("id", "audit_seq", "audit_head").
		Where("audit_head_mac = ''").Scan(ctx); err != nil {
		return 0, fmt.Errorf("find unsigned chain heads: %w", err)
	}
	for i := range rows {
		_, err := d.bun.NewUpdate().Model((*agentRow)(nil)).Set("audit_head_mac = ?", d.headMAC(&rows[i])).
			Where("id = ?", rows[i].ID).Where("audit_seq = ?", rows[i].AuditSeq).Where("audit_head_mac = ''").Exec(ctx)
		if err != nil {
			return i, fmt.Errorf("sign chain head: %w", err)
		}
	}
	return len(rows), nil
}

// Verify recomputes the fingerprint from the stored row and checks the chain
// in one read-only snapshot: the head must carry a valid signature, the
// entries after the last signed checkpoint must hash and link correctly, and
// the chain must end exactly at the head (a deleted tail is caught). Verified
// means the stored fingerprint matches the row and the latest fingerprint
// the chain recorded. A valid chain advances the checkpoint, so the next
// verification re-hashes only what was appended since.
func (s *AgentService) Verify(ctx context.Context, p auth.Principal, agentID string) (*agent.Verification, error) {
	var (
		row     agentRow
		cp      checkpointRow
		valid   bool
		chainFP string
	)
	opts := &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	err := s.db.bun.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		err := tx.NewSelect().Model(&row).Where("id = ?", agentID).Where("org_id = ?", p.OrgID).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return agentNotFound(agentID)
		}
		if err != nil {
			return fmt.Errorf("get agent: %w", err)
		}
		var hasCP bool
		if cp, hasCP, err = s.readCheckpoint(ctx, tx, agentID); err != nil {
			return err
		}
		if hasCP && cp.Sequence > row.AuditSeq {
			// A verified chain is shorter now: its head was rolled back to an
			// earlier (genuinely signed) one and the entries since deleted.
			return nil
		}
		if !s.db.signed(row.AuditHeadMAC, row.ID, row.AuditSeq, row.AuditHead, "") {
			return nil // a head not signed by this server: invalid, nothing to walk
		}
		valid, chainFP, err = walkChain(ctx, tx, &row, cp)
		return err
	})
	if err != nil {
		return nil, err
	}
	if valid && row.AuditSeq > cp.Sequence {
		if err := s.advanceCheckpoint(ctx, &row, chainFP); err != nil {
			return nil, err
		}
	}
	a := row.agent()
	fp := agent.Fingerprint(*a)
	return &agent.Verification{
		Verified:        fp == a.Fingerprint && fp == chainFP,
		Fingerprint:     fp,
		AuditChainValid: valid,
	}, nil
}

// readCheckpoint reads the agent's checkpoint in tx: signed reports that
// it exists and carries this server's signature; without one it is the
// chain's start.
func (s *AgentService) readCheckpoint(ctx context.Context, tx bun.Tx, agentID string) (cp checkpointRow, signed bool, err error) {
	err = tx.NewSelect().Model(&cp).Where("agent_id = ?", agentID).Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return checkpointRow{AgentID: agentID}, false, nil
	case err != nil:
		return cp, false, fmt.Errorf("get audit checkpoint: %w", err)
	}
	if !s.db.signed(cp.MAC, agentID, cp.Sequence, cp.Hash, cp.Fingerprint) {
		return checkpointRow{AgentID: agentID}, false, nil
	}
	return cp, true, nil
}

// walkChain re-hashes the agent's chain in tx from cp to its head, in
// batches of verifyBatch: valid and the chain's latest fingerprint.
func walkChain(ctx context.Context, tx bun.Tx, row *agentRow, cp checkpointRow) (valid bool, fp string, err error) {
	walk := agent.NewChainWalk(cp.Sequence, cp.Hash, cp.Fingerprint)
	for after := cp.Sequence; after < row.AuditSeq; {
		var rows []auditRow
		if err := tx.NewSelect().Model(&rows).Where("agent_id = ?", row.ID).Where("sequence > ?", after).
			Where("sequence <= ?", row.AuditSeq).Order("sequence").Limit(verifyBatch).Scan(ctx); err != nil {
			return false, "", fmt.Errorf("read audit chain: %w", err)
		}
		entries := make([]agent.AuditEntry, len(rows))
		for i, r := range rows {
			entries[i] = r.entry()
		}
		walk.Add(entries) // on to the end even when broken: the latest fingerprint counts
		if len(rows) == 0 {
			break
		}
		after = rows[len(rows)-1].Sequence
	}
	valid, fp = walk.End(row.AuditSeq, row.AuditHead)
	return valid, fp, nil
}

// advanceCheckpoint signs and stores the checkpoint at the agent's verified
// head, only ever forward: a slower verification cannot move it back.
func (s *AgentService) advanceCheckpoint(ctx context.Context, row *agentRow, chainFP string) error {
	next := checkpointRow{AgentID: row.ID, Sequence: row.AuditSeq, Hash: row.AuditHead, Fingerprint: chainFP}
	next.MAC = s.db.sign(row.ID, next.Sequence, next.Hash, next.Fingerprint)
	if _, err := s.db.bun.NewInsert().Model(&next).
		On("CONFLICT (agent_id) DO UPDATE").
		Set("sequence = EXCLUDED.sequence, hash = EXCLUDED.hash, fingerprint = EXCLUDED.fingerprint, mac = EXCLUDED.mac").
		Where("checkpoint_row.sequence < EXCLUDED.sequence").Exec(ctx); err != nil {
		return fmt.Errorf("store audit checkpoint: %w", err)
	}
	return nil
}
