import { startTransition, useId, useState, type FormEvent } from "react";
import { graphql, usePaginationFragment } from "react-relay/hooks";
import type { Mandates_query$key } from "../../__generated__/Mandates_query.graphql";
import type { MandatesPaginationQuery } from "../../__generated__/MandatesPaginationQuery.graphql";
import type { MandatesCreateMutation } from "../../__generated__/MandatesCreateMutation.graphql";
import type { MandatesRevokeMutation } from "../../__generated__/MandatesRevokeMutation.graphql";
import { useCaps } from "../../caps";
import { ConfirmButton } from "../../ui/Confirm";
import { ErrorBox } from "../../ui/ErrorBox";
import { money, when } from "../../ui/format";
import { useCommit } from "../../ui/mutation";

export function Mandates({ query, agentId }: { query: Mandates_query$key; agentId: string }) {
  const { data, loadNext, hasNext, isLoadingNext, refetch } = usePaginationFragment<MandatesPaginationQuery, Mandates_query$key>(
    graphql`
      fragment Mandates_query on Query
      @refetchable(queryName: "MandatesPaginationQuery")
      @argumentDefinitions(agentId: { type: "ID!" }, first: { type: "Int", defaultValue: 20 }, after: { type: "String" }) {
        mandates(agentId: $agentId, first: $first, after: $after) @connection(key: "Mandates_mandates", filters: ["agentId"]) {
          totalCount
          edges {
            node {
              id
              description
              actions
              budget
              spent
              remaining
              currency
              uses
              maxUses
              maxPerTransaction
              status
              expiresAt
            }
          }
        }
      }
    `,
    query,
  );
  const caps = useCaps();
  const [revoke] = useCommit<MandatesRevokeMutation>(graphql`
    mutation MandatesRevokeMutation($id: ID!, $reason: String) {
      revokeMandate(id: $id, reason: $reason) {
        id
        status
        revokedAt
      }
    }
  `);
  return (
    <section className="panel" aria-labelledby="mandates">
      <h2 id="mandates">Mandates ({data.mandates.totalCount})</h2>
      <div className="scroll">
        <table>
          <caption className="sr-only">The agent's mandates, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Description</th>
              <th scope="col">Actions</th>
              <th scope="col" className="num">Spent / budget</th>
              <th scope="col" className="num">Uses</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              {caps.admin && <th scope="col">Revoke</th>}
            </tr>
          </thead>
          <tbody>
            {data.mandates.edges.map(({ node: m }) => (
              <tr key={m.id}>
                <th scope="row">
                  {m.description}
                  <div>
                    <code>{m.id}</code>
                  </div>
                </th>
                <td>{m.actions.join(", ")}</td>
                <td className="num">
                  {m.spent} / {money(m.budget, m.currency)}
                </td>
                <td className="num">
                  {m.uses}
                  {m.maxUses != null ? ` / ${m.maxUses}` : ""}
                </td>
                <td>{m.status}</td>
                <td>{when(m.expiresAt)}</td>
                {caps.admin && (
                  <td>
                    {m.status === "active" && (
                      <ConfirmButton
                        label="Revoke"
                        buttonLabel={`Revoke mandate ${m.description}`}
                        title={`Revoke "${m.description}"?`}
                        danger
                        reason="optional"
                        onConfirm={(reason) => revoke({ id: m.id, reason: reason || null })}
                      />
                    )}
                  </td>
                )}
              </tr>
            ))}
            {data.mandates.edges.length === 0 && (
              <tr>
                <td colSpan={caps.admin ? 7 : 6}>No mandates.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {hasNext && (
        <button type="button" onClick={() => loadNext(20)} disabled={isLoadingNext}>
          {isLoadingNext ? "Loading…" : "Older mandates"}
        </button>
      )}
      {caps.admin && <CreateMandate agentId={agentId} onCreated={() => startTransition(() => void refetch({ agentId }, { fetchPolicy: "network-only" }))} />}
    </section>
  );
}

function CreateMandate({ agentId, onCreated }: { agentId: string; onCreated: () => void }) {
  const id = useId();
  const [f, setF] = useState({ description: "", actions: "", budget: "", maxPerTransaction: "", maxUses: "", days: "7" });
  const [error, setError] = useState<unknown>(null);
  const [create, pending] = useCommit<MandatesCreateMutation>(graphql`
    mutation MandatesCreateMutation($input: CreateMandateInput!) {
      createMandate(input: $input) {
        id
        status
      }
    }
  `);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const expiresAt = new Date(Date.now() + Number(f.days) * 86400_000).toISOString();
      await create({
        input: {
          agentId,
          description: f.description,
          actions: f.actions.split(/[\s,]+/).filter(Boolean),
          budget: f.budget,
          maxPerTransaction: f.maxPerTransaction || null,
          maxUses: f.maxUses ? Number(f.maxUses) : null,
          expiresAt,
        },
      });
      setF({ description: "", actions: "", budget: "", maxPerTransaction: "", maxUses: "", days: "7" });
      onCreated();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <details>
      <summary>Create a mandate</summary>
      <form onSubmit={submit} className="grid-form">
        <p>
          <label htmlFor={`${id}-d`}>Description</label>
          <input id={`${id}-d`} required value={f.description} onChange={set("description")} />
        </p>
        <p>
          <label htmlFor={`${id}-a`}>Actions (comma-separated)</label>
          <input id={`${id}-a`} required value={f.actions} onChange={set("actions")} />
        </p>
        <p>
          <label htmlFor={`${id}-b`}>Budget</label>
          <input id={`${id}-b`} required inputMode="decimal" value={f.budget} onChange={set("budget")} />
        </p>
        <p>
          <label htmlFor={`${id}-m`}>Most per transaction (optional)</label>
          <input id={`${id}-m`} inputMode="decimal" value={f.maxPerTransaction} onChange={set("maxPerTransaction")} />
        </p>
        <p>
          <label htmlFor={`${id}-u`}>Most uses (optional)</label>
          <input id={`${id}-u`} inputMode="numeric" value={f.maxUses} onChange={set("maxUses")} />
        </p>
        <p>
          <label htmlFor={`${id}-e`}>Expires after (days, 1 to 90)</label>
          <input id={`${id}-e`} required inputMode="numeric" value={f.days} onChange={set("days")} />
        </p>
        <p>
          <button type="submit" className="primary" disabled={pending}>
            Create mandate
          </button>
        </p>
      </form>
      {error != null && <ErrorBox error={error} />}
    </details>
  );
}
