import { startTransition, useId, useState, type ReactNode } from "react";
import { graphql, useRefetchableFragment, useRelayEnvironment } from "react-relay/hooks";
import { fetchQuery } from "relay-runtime";
import type { PolicyPanel_agent$data, PolicyPanel_agent$key } from "../../__generated__/PolicyPanel_agent.graphql";
import type { PolicyPanelRefetchQuery } from "../../__generated__/PolicyPanelRefetchQuery.graphql";
import type { PolicyPanelSaveMutation, SpendPolicyInput, LimitWindow, WindowMode } from "../../__generated__/PolicyPanelSaveMutation.graphql";
import type { PolicyPanelWhatIfQuery, PolicyPanelWhatIfQuery$data } from "../../__generated__/PolicyPanelWhatIfQuery.graphql";
import type { UsageBarsQuery } from "../../__generated__/UsageBarsQuery.graphql";
import { useCaps } from "../../caps";
import { ErrorBox } from "../../ui/ErrorBox";
import { asApiError } from "../../relay/errors";
import { windowLabel } from "../../ui/format";
import { useCommit } from "../../ui/mutation";
import { usageQuery } from "./UsageBars";

type Policy = PolicyPanel_agent$data["policy"];
type LimitRow = { amount: string; window: LimitWindow; mode: WindowMode; actions: string };
type VelocityRow = { maxCount: string; windowSeconds: string; actions: string };
type Form = {
  timezone: string;
  limits: LimitRow[];
  velocity: VelocityRow[];
  approvalAbove: string;
  approvalExpires: string;
  minCounterpartyScore: string;
  requireMandate: boolean;
};

const whatIf = graphql`
  query PolicyPanelWhatIfQuery($agentId: ID!, $policy: SpendPolicyInput!, $since: Time!) {
    simulatePolicy(agentId: $agentId, policy: $policy, since: $since) {
      replayed
      allowed
      refused
      heldForApproval
      refusedByCode {
        reasonCode
        count
      }
      peaks {
        window
        mode
        actions
        limit
        peak
        at
      }
      outcomes {
        reasonCode
        reason
        allowed
        requiresApproval
        transaction {
          id
          amount
          currency
          createdAt
        }
      }
    }
  }
`;

function formOf(p: Policy): Form {
  const list = (a: readonly string[] | null | undefined) => (a ?? []).join(", ");
  return {
    timezone: p.timezone,
    limits: p.spendLimits.map((l) => ({ amount: String(l.amount), window: l.window, mode: l.mode, actions: list(l.actions) })),
    velocity: p.velocityLimits.map((v) => ({ maxCount: String(v.maxCount), windowSeconds: String(v.windowSeconds), actions: list(v.actions) })),
    approvalAbove: p.approval ? String(p.approval.above) : "",
    approvalExpires: p.approval ? String(p.approval.expiresAfterSeconds) : "3600",
    minCounterpartyScore: p.minCounterpartyScore == null ? "" : String(p.minCounterpartyScore),
    requireMandate: p.requireMandate,
  };
}

function inputOf(f: Form): SpendPolicyInput {
  const list = (s: string) => {
    const a = s.split(/[\s,]+/).filter(Boolean);
    return a.length ? a : null;
  };
  return {
    timezone: f.timezone.trim() || null,
    spendLimits: f.limits.map((l) => ({ amount: l.amount.trim(), window: l.window, mode: l.mode, actions: list(l.actions) })),
    velocityLimits: f.velocity.map((v) => ({ maxCount: Number(v.maxCount), windowSeconds: Number(v.windowSeconds), actions: list(v.actions) })),
    approval: f.approvalAbove.trim() ? { above: f.approvalAbove.trim(), expiresAfterSeconds: Number(f.approvalExpires) } : null,
    minCounterpartyScore: f.minCounterpartyScore.trim() ? Number(f.minCounterpartyScore) : null,
    requireMandate: f.requireMandate,
  };
}

// PolicyPanel shows the agent's spend policy and, for admin keys, edits it:
// the what-if replays the last 30 days under the edit before it is saved,
// and a save names the version it was made from, so a stale edit says so.
export function PolicyPanel({ agent, children }: { agent: PolicyPanel_agent$key; children: ReactNode }) {
  const [a, refetch] = useRefetchableFragment<PolicyPanelRefetchQuery, PolicyPanel_agent$key>(
    graphql`
      fragment PolicyPanel_agent on Agent @refetchable(queryName: "PolicyPanelRefetchQuery") {
        id
        currency
        authorizedActions
        policy {
          version
          timezone
          spendLimits {
            amount
            window
            mode
            actions
          }
          velocityLimits {
            maxCount
            windowSeconds
            actions
          }
          counterparties {
            allowAgents
            denyAgents
            allowOrgs
            denyOrgs
          }
          minCounterpartyScore
          trustTiers {
            minScore
            limitPercent
          }
          approval {
            above
            expiresAfterSeconds
          }
          requireMandate
        }
      }
    `,
    agent,
  );
  const caps = useCaps();
  const [saved, setSaved] = useState<string | null>(null);
  const p = a.policy;
  return (
    <section className="panel" aria-labelledby="policy">
      <h2 id="policy">Spend policy (version {p.version})</h2>
      {children}
      <Summary p={p} currency={a.currency} />
      <div role="status" aria-live="polite">
        {saved && <p className="help">{saved}</p>}
      </div>
      {caps.admin && (
        <Editor
          key={p.version}
          agentId={a.id}
          currency={a.currency}
          policy={p}
          onSaved={setSaved}
          reload={() => startTransition(() => void refetch({}, { fetchPolicy: "network-only" }))}
        />
      )}
    </section>
  );
}

function Summary({ p, currency }: { p: Policy; currency: string }) {
  const c = p.counterparties;
  const ids = (l: readonly string[]) => (l.length ? l.join(", ") : "—");
  return (
    <dl className="facts">
      <dt>Time zone</dt>
      <dd>{p.timezone}</dd>
      <dt>Spend limits</dt>
      <dd>{p.spendLimits.length ? p.spendLimits.map((l) => `${l.amount} ${currency} per ${windowLabel(l)}`).join("; ") : "none"}</dd>
      <dt>Velocity limits</dt>
      <dd>{p.velocityLimits.length ? p.velocityLimits.map((v) => `${v.maxCount} per ${v.windowSeconds} s`).join("; ") : "none"}</dd>
      <dt>Approval</dt>
      <dd>{p.approval ? `over ${p.approval.above} ${currency}, expires after ${p.approval.expiresAfterSeconds} s` : "none"}</dd>
      <dt>Counterparties</dt>
      <dd>
        allow agents {ids(c.allowAgents)}; deny agents {ids(c.denyAgents)}; allow orgs {ids(c.allowOrgs)}; deny orgs {ids(c.denyOrgs)}
      </dd>
      <dt>Lowest counterparty score</dt>
      <dd>{p.minCounterpartyScore ?? "—"}</dd>
      <dt>Trust tiers</dt>
      <dd>{p.trustTiers.length ? p.trustTiers.map((t) => `${t.minScore}+: ${t.limitPercent}%`).join("; ") : "none"}</dd>
      <dt>Mandate required</dt>
      <dd>{p.requireMandate ? "yes" : "no"}</dd>
    </dl>
  );
}

function Editor({ agentId, currency, policy, reload, onSaved }: { agentId: string; currency: string; policy: Policy; reload: () => void; onSaved: (message: string | null) => void }) {
  const id = useId();
  const env = useRelayEnvironment();
  const [f, setF] = useState<Form>(() => formOf(policy));
  const [error, setError] = useState<unknown>(null);
  const [stale, setStale] = useState(false);
  const [sim, setSim] = useState<PolicyPanelWhatIfQuery$data["simulatePolicy"] | null>(null);
  const [simError, setSimError] = useState<unknown>(null);
  const [simBusy, setSimBusy] = useState(false);
  const [save, saving] = useCommit<PolicyPanelSaveMutation>(graphql`
    mutation PolicyPanelSaveMutation($agentId: ID!, $input: SpendPolicyInput!, $expectedVersion: Int) {
      setAgentPolicy(agentId: $agentId, input: $input, expectedVersion: $expectedVersion) {
        id
        fingerprint
        updatedAt
        dailyLimit
        ...PolicyPanel_agent
        ...AuditChain_agent
      }
    }
  `);
  const change = (next: Partial<Form>) => {
    setF({ ...f, ...next });
    setSim(null);
    setSimError(null);
  };
  const setLimit = (i: number, row: Partial<LimitRow>) => change({ limits: f.limits.map((l, j) => (j === i ? { ...l, ...row } : l)) });
  const setVel = (i: number, row: Partial<VelocityRow>) => change({ velocity: f.velocity.map((v, j) => (j === i ? { ...v, ...row } : v)) });

  const runWhatIf = () => {
    setSimBusy(true);
    setSimError(null);
    const since = new Date(Date.now() - 30 * 86400_000).toISOString();
    fetchQuery<PolicyPanelWhatIfQuery>(env, whatIf, { agentId, policy: inputOf(f), since }, { fetchPolicy: "network-only" }).subscribe({
      next: (d) => setSim(d.simulatePolicy),
      error: (e: unknown) => {
        setSimError(e);
        setSimBusy(false);
      },
      complete: () => setSimBusy(false),
    });
  };
  const submit = async () => {
    setError(null);
    setStale(false);
    onSaved(null);
    try {
      const r = await save({ agentId, input: inputOf(f), expectedVersion: policy.version });
      onSaved(`Saved version ${policy.version + 1}. New fingerprint ${r.setAgentPolicy.fingerprint}.`);
      fetchQuery<UsageBarsQuery>(env, usageQuery, { id: agentId }, { fetchPolicy: "network-only" }).subscribe({ error: () => {} });
    } catch (e) {
      const err = asApiError(e);
      if (err.code === "CONFLICT") setStale(true);
      setError(err);
    }
  };

  return (
    <details>
      <summary>Edit the policy</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <fieldset>
          <legend>Spend limits ({currency})</legend>
          {f.limits.map((l, i) => (
            <div className="grid-form" key={i}>
              <p>
                <label htmlFor={`${id}-la${i}`}>Amount</label>
                <input id={`${id}-la${i}`} inputMode="decimal" required value={l.amount} onChange={(e) => setLimit(i, { amount: e.target.value })} />
              </p>
              <p>
                <label htmlFor={`${id}-lw${i}`}>Window</label>
                <select id={`${id}-lw${i}`} value={l.window} onChange={(e) => setLimit(i, { window: e.target.value as LimitWindow })}>
                  <option>day</option>
                  <option>week</option>
                  <option>month</option>
                  <option>total</option>
                </select>
              </p>
              <p>
                <label htmlFor={`${id}-lm${i}`}>Mode</label>
                <select id={`${id}-lm${i}`} value={l.mode} onChange={(e) => setLimit(i, { mode: e.target.value as WindowMode })}>
                  <option>rolling</option>
                  <option>calendar</option>
                </select>
              </p>
              <p>
                <label htmlFor={`${id}-lc${i}`}>Only actions (optional)</label>
                <input id={`${id}-lc${i}`} value={l.actions} onChange={(e) => setLimit(i, { actions: e.target.value })} />
              </p>
              <p>
                <button type="button" onClick={() => change({ limits: f.limits.filter((_, j) => j !== i) })} aria-label={`Remove spend limit ${i + 1}`}>
                  Remove
                </button>
              </p>
            </div>
          ))}
          <button type="button" onClick={() => change({ limits: [...f.limits, { amount: "", window: "week", mode: "rolling", actions: "" }] })}>
            Add a spend limit
          </button>
        </fieldset>
        <fieldset>
          <legend>Velocity limits</legend>
          {f.velocity.map((v, i) => (
            <div className="grid-form" key={i}>
              <p>
                <label htmlFor={`${id}-vc${i}`}>At most (transactions)</label>
                <input id={`${id}-vc${i}`} inputMode="numeric" required value={v.maxCount} onChange={(e) => setVel(i, { maxCount: e.target.value })} />
              </p>
              <p>
                <label htmlFor={`${id}-vw${i}`}>In (seconds)</label>
                <input id={`${id}-vw${i}`} inputMode="numeric" required value={v.windowSeconds} onChange={(e) => setVel(i, { windowSeconds: e.target.value })} />
              </p>
              <p>
                <label htmlFor={`${id}-va${i}`}>Only actions (optional)</label>
                <input id={`${id}-va${i}`} value={v.actions} onChange={(e) => setVel(i, { actions: e.target.value })} />
              </p>
              <p>
                <button type="button" onClick={() => change({ velocity: f.velocity.filter((_, j) => j !== i) })} aria-label={`Remove velocity limit ${i + 1}`}>
                  Remove
                </button>
              </p>
            </div>
          ))}
          <button type="button" onClick={() => change({ velocity: [...f.velocity, { maxCount: "10", windowSeconds: "3600", actions: "" }] })}>
            Add a velocity limit
          </button>
        </fieldset>
        <fieldset>
          <legend>Other rules</legend>
          <div className="grid-form">
            <p>
              <label htmlFor={`${id}-aa`}>Approval above ({currency}; empty: none)</label>
              <input id={`${id}-aa`} inputMode="decimal" value={f.approvalAbove} onChange={(e) => change({ approvalAbove: e.target.value })} />
            </p>
            <p>
              <label htmlFor={`${id}-ae`}>Approval expires after (seconds)</label>
              <input id={`${id}-ae`} inputMode="numeric" value={f.approvalExpires} onChange={(e) => change({ approvalExpires: e.target.value })} />
            </p>
            <p>
              <label htmlFor={`${id}-mc`}>Lowest counterparty score (empty: none)</label>
              <input id={`${id}-mc`} inputMode="numeric" value={f.minCounterpartyScore} onChange={(e) => change({ minCounterpartyScore: e.target.value })} />
            </p>
            <p>
              <label htmlFor={`${id}-tz`}>Time zone</label>
              <input id={`${id}-tz`} value={f.timezone} onChange={(e) => change({ timezone: e.target.value })} />
            </p>
            <p>
              <input type="checkbox" id={`${id}-rm`} checked={f.requireMandate} onChange={(e) => change({ requireMandate: e.target.checked })} />{" "}
              <label htmlFor={`${id}-rm`} style={{ display: "inline" }}>
                Require a mandate
              </label>
            </p>
          </div>
        </fieldset>
        <div className="actions">
          <button type="button" onClick={runWhatIf} disabled={simBusy}>
            What if? (replay the last 30 days)
          </button>
          <button type="submit" className="primary" disabled={saving}>
            Save policy (from version {policy.version})
          </button>
        </div>
      </form>
      <div role="status" aria-live="polite">
        {simBusy && <p className="loading">Replaying…</p>}
        {sim && <WhatIf sim={sim} currency={currency} />}
      </div>
      {simError != null && <ErrorBox error={simError} title="What-if" />}
      {stale && (
        <p className="notice">
          Stale edit: the policy changed since you opened it (you edited version {policy.version}).{" "}
          <button type="button" onClick={reload}>
            Load the current policy
          </button>
        </p>
      )}
      {error != null && <ErrorBox error={error} />}
    </details>
  );
}

function WhatIf({ sim, currency }: { sim: PolicyPanelWhatIfQuery$data["simulatePolicy"]; currency: string }) {
  return (
    <div className="panel" data-testid="what-if">
      <h3>What if: the last 30 days under this edit</h3>
      <p>
        Replayed {sim.replayed}: {sim.allowed} allowed, {sim.refused} refused, {sim.heldForApproval} held for approval.
      </p>
      {sim.refusedByCode.length > 0 && (
        <table>
          <caption>Refusals by reason</caption>
          <thead>
            <tr>
              <th scope="col">Reason code</th>
              <th scope="col" className="num">Count</th>
            </tr>
          </thead>
          <tbody>
            {sim.refusedByCode.map((r) => (
              <tr key={r.reasonCode}>
                <th scope="row">
                  <code>{r.reasonCode}</code>
                </th>
                <td className="num">{r.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sim.peaks.length > 0 && (
        <table>
          <caption>Each window's peak against its limit</caption>
          <thead>
            <tr>
              <th scope="col">Window</th>
              <th scope="col" className="num">Peak</th>
              <th scope="col" className="num">Limit</th>
            </tr>
          </thead>
          <tbody>
            {sim.peaks.map((k, i) => (
              <tr key={i}>
                <th scope="row">{windowLabel(k)}</th>
                <td className="num">
                  {k.peak} {currency}
                </td>
                <td className="num">
                  {k.limit} {currency}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {sim.outcomes.length > 0 && (
        <details>
          <summary>Refused or held ({sim.outcomes.length} shown)</summary>
          <ul>
            {sim.outcomes.map((o) => (
              <li key={o.transaction.id}>
                <code>{o.transaction.id}</code> {o.transaction.amount} {o.transaction.currency}: <code>{o.reasonCode}</code> {o.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
