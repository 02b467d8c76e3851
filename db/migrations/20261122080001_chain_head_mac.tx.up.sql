-- Each agent's chain head (audit_seq, audit_head) is signed with an HMAC
-- under the server key, so a database writer cannot cut or rewrite a chain
-- consistently. Heads written before this migration are signed at start-up.
ALTER TABLE agents ADD COLUMN audit_head_mac text NOT NULL DEFAULT '';

-- The last chain position verifyAgent proved, signed the same way: the next
-- verification re-hashes only the entries after it.
CREATE TABLE audit_checkpoints (
    agent_id    text PRIMARY KEY REFERENCES agents (id) ON DELETE CASCADE,
    sequence    integer NOT NULL,
    hash        text NOT NULL,
    fingerprint text NOT NULL,
    mac         text NOT NULL
);
