import { useState, useTransition } from "react";
import { graphql, useFragment, usePaginationFragment } from "react-relay/hooks";
import type { WebhookPanel_webhook$key } from "../../__generated__/WebhookPanel_webhook.graphql";
import type { WebhookPanelAttempts_webhook$key } from "../../__generated__/WebhookPanelAttempts_webhook.graphql";
import type { WebhookPanelAttemptsRefetchQuery } from "../../__generated__/WebhookPanelAttemptsRefetchQuery.graphql";
import type { WebhookPanelTestMutation, WebhookPanelTestMutation$data } from "../../__generated__/WebhookPanelTestMutation.graphql";
import type { WebhookPanelRotateMutation } from "../../__generated__/WebhookPanelRotateMutation.graphql";
import type { WebhookPanelActiveMutation } from "../../__generated__/WebhookPanelActiveMutation.graphql";
import type { WebhookPanelRedeliverMutation } from "../../__generated__/WebhookPanelRedeliverMutation.graphql";
import { useCaps } from "../../caps";
import { ConfirmButton } from "../../ui/Confirm";
import { ErrorBox } from "../../ui/ErrorBox";
import { when } from "../../ui/format";
import { useCommit } from "../../ui/mutation";

// WebhookPanel is one endpoint: its state, the admin's actions on it, and
// its delivery attempts (Attempts).
export function WebhookPanel({ webhook }: { webhook: WebhookPanel_webhook$key }) {
  const w = useFragment(
    graphql`
      fragment WebhookPanel_webhook on Webhook {
        id
        url
        events
        active
        consecutiveFailures
        createdAt
        ...WebhookPanelAttempts_webhook
      }
    `,
    webhook,
  );
  const caps = useCaps();
  const [error, setError] = useState<unknown>(null);
  const [test, setTest] = useState<WebhookPanelTestMutation$data["testWebhook"] | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [sendTest, testing] = useCommit<WebhookPanelTestMutation>(graphql`
    mutation WebhookPanelTestMutation($id: ID!) {
      testWebhook(id: $id) {
        statusCode
        success
      }
    }
  `);
  const [rotate] = useCommit<WebhookPanelRotateMutation>(graphql`
    mutation WebhookPanelRotateMutation($id: ID!) {
      rotateWebhookSecret(id: $id) {
        id
        secret
      }
    }
  `);
  const [setActive, toggling] = useCommit<WebhookPanelActiveMutation>(graphql`
    mutation WebhookPanelActiveMutation($id: ID!, $active: Boolean!) {
      updateWebhook(id: $id, input: { active: $active }) {
        id
        active
        consecutiveFailures
      }
    }
  `);
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(e);
    }
  };
  const headingId = `wh-${w.id}`;

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <code>{w.url}</code>
      </h2>
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{w.id}</code>
        </dd>
        <dt>State</dt>
        <dd>
          <span className={`badge ${w.active ? "ok" : "fail"}`}>{w.active ? "enabled" : "disabled"}</span>
          {w.consecutiveFailures > 0 && ` · ${w.consecutiveFailures} consecutive failures`}
        </dd>
        <dt>Events</dt>
        <dd>{w.events.join(", ")}</dd>
        <dt>Created</dt>
        <dd>{when(w.createdAt)}</dd>
      </dl>
      {caps.admin && (
        <div className="actions">
          <button type="button" disabled={testing} onClick={() => act(async () => setTest((await sendTest({ id: w.id })).testWebhook))}>
            Send test
          </button>
          <ConfirmButton
            label="Rotate secret"
            title="Rotate this endpoint's signing secret?"
            onConfirm={async () => {
              const r = await rotate({ id: w.id });
              setSecret(r.rotateWebhookSecret.secret ?? null);
            }}
          >
            <p>For 24 hours deliveries carry signatures under both the new and the old secret.</p>
          </ConfirmButton>
          <button type="button" disabled={toggling} onClick={() => act(() => setActive({ id: w.id, active: !w.active }))}>
            {w.active ? "Disable" : "Enable"}
          </button>
        </div>
      )}
      <div role="status" aria-live="polite">
        {test && (
          <p className={test.success ? "help" : "notice"}>
            Test delivery: {test.success ? "succeeded" : "failed"}, HTTP {test.statusCode}.
          </p>
        )}
      </div>
      {secret && (
        <div className="secret">
          <p>
            New secret (shown once; copy it now): <code data-testid="webhook-secret">{secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </div>
      )}
      {error != null && <ErrorBox error={error} />}
      <Attempts webhook={w} act={act} />
    </section>
  );
}

// Attempts is an endpoint's delivery attempts, newest first and paged,
// with a redelivery of each. Refreshing re-reads the attempts alone (through
// `node`), so a refresh still in flight when the endpoint is disabled or
// enabled cannot put its older state back.
function Attempts({ webhook, act }: { webhook: WebhookPanelAttempts_webhook$key; act: (fn: () => Promise<unknown>) => Promise<void> }) {
  const { data: w, loadNext, hasNext, isLoadingNext, refetch } = usePaginationFragment<WebhookPanelAttemptsRefetchQuery, WebhookPanelAttempts_webhook$key>(
    graphql`
      fragment WebhookPanelAttempts_webhook on Webhook
      @refetchable(queryName: "WebhookPanelAttemptsRefetchQuery")
      @argumentDefinitions(first: { type: "Int", defaultValue: 20 }, after: { type: "String" }) {
        id
        deliveries(first: $first, after: $after) @connection(key: "WebhookPanel_deliveries") {
          edges {
            node {
              id
              eventId
              eventType
              attempt
              success
              statusCode
              latencyMs
              error
              createdAt
            }
          }
        }
      }
    `,
    webhook,
  );
  const caps = useCaps();
  const [note, setNote] = useState<string | null>(null);
  const [redeliver] = useCommit<WebhookPanelRedeliverMutation>(graphql`
    mutation WebhookPanelRedeliverMutation($webhookId: ID!, $eventId: ID!) {
      redeliverEvent(webhookId: $webhookId, eventId: $eventId)
    }
  `);
  const [reloading, startTransition] = useTransition();
  // A transition keeps the attempts on screen while they are re-read.
  const reload = () => startTransition(() => void refetch({}, { fetchPolicy: "network-only" }));

  return (
    <>
      {caps.admin && (
        <div className="actions">
          <button type="button" onClick={reload} disabled={reloading}>
            Refresh attempts
          </button>
        </div>
      )}
      <div role="status" aria-live="polite">
        {note && <p className="help">{note}</p>}
      </div>
      <div className="scroll">
        <table>
          <caption>Delivery attempts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Type</th>
              <th scope="col" className="num">Attempt</th>
              <th scope="col">Status</th>
              <th scope="col" className="num">Latency</th>
              <th scope="col">At</th>
              {caps.admin && <th scope="col">Redeliver</th>}
            </tr>
          </thead>
          <tbody>
            {w.deliveries.edges.map(({ node: d }) => (
              <tr key={d.id}>
                <th scope="row">
                  <code>{d.eventId}</code>
                </th>
                <td>{d.eventType}</td>
                <td className="num">{d.attempt}</td>
                <td>
                  <span className={`badge ${d.success ? "ok" : "fail"}`}>{d.success ? "ok" : "failed"}</span> {d.statusCode ?? ""}
                  {d.error && <div className="muted">{d.error}</div>}
                </td>
                <td className="num">{d.latencyMs} ms</td>
                <td>{when(d.createdAt)}</td>
                {caps.admin && (
                  <td>
                    <button
                      type="button"
                      aria-label={`Redeliver ${d.eventId}`}
                      onClick={() =>
                        act(async () => {
                          await redeliver({ webhookId: w.id, eventId: d.eventId });
                          setNote(`Redelivery of ${d.eventId} queued; the new attempt appears below.`);
                          window.setTimeout(reload, 1000);
                        })
                      }
                    >
                      Redeliver
                    </button>
                  </td>
                )}
              </tr>
            ))}
            {w.deliveries.edges.length === 0 && (
              <tr>
                <td colSpan={caps.admin ? 7 : 6}>No attempts yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {hasNext && (
        <button type="button" onClick={() => loadNext(20)} disabled={isLoadingNext}>
          {isLoadingNext ? "Loading…" : "Older attempts"}
        </button>
      )}
    </>
  );
}
