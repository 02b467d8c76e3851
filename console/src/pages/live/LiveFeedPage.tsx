import { useEffect, useId, useMemo, useRef, useState } from "react";
import { graphql, useSubscription } from "react-relay/hooks";
import type { Client } from "graphql-ws";
import type { LiveFeedPageSubscription, LiveFeedPageSubscription$data } from "../../__generated__/LiveFeedPageSubscription.graphql";
import { ErrorBox } from "../../ui/ErrorBox";
import { asApiError } from "../../relay/errors";
import { when } from "../../ui/format";

export const eventTypes = [
  "agent.registered",
  "agent.updated",
  "agent.suspended",
  "agent.reinstated",
  "agent.policy_changed",
  "transaction.completed",
  "transaction.reversed",
  "transaction.approval_requested",
  "transaction.declined",
  "transaction.expired",
  "trust.score_changed",
  "dispute.filed",
  "dispute.withdrawn",
  "mandate.created",
  "mandate.revoked",
  "webhook.disabled",
] as const;

type Event = LiveFeedPageSubscription$data["events"];
type Notice = { kind: "info" | "warn"; text: string } | null;
const keep = 500;

// LiveFeedPage streams the organization's events. A dropped connection is
// retried by the graphql-ws client with `after` set to the last event shown
// (see relay/environment.ts), so nothing is missed or shown twice; a stream
// closed for falling behind (4420) says it is resyncing the same way.
export function LiveFeedPage({ ws }: { ws: Client }) {
  const [types, setTypes] = useState<string[]>([]);
  const [events, setEvents] = useState<Event[]>([]);
  const [notice, setNotice] = useState<Notice>(null);
  const [error, setError] = useState<unknown>(null);
  const [epoch, setEpoch] = useState(0); // a restart after an error that retrying cannot fix
  const last = useRef<string | null>(null);
  const id = useId();

  useEffect(() => {
    const offClosed = ws.on("closed", (ev) => {
      const e = ev as { code?: number; reason?: string };
      if (e.code === 4420) {
        setNotice({ kind: "warn", text: `Fell too far behind the live stream: resyncing after ${last.current ?? "the start"}…` });
      } else if (e.code !== 1000) {
        setNotice({ kind: "warn", text: `Connection lost (${e.code ?? "network"}): reconnecting, resuming after ${last.current ?? "the start"}…` });
      }
    });
    const offConnected = ws.on("connected", (_socket, _payload, wasRetry) => {
      if (wasRetry) setNotice({ kind: "info", text: `Reconnected: resumed after ${last.current ?? "the start"} with no gap.` });
    });
    return () => {
      offClosed();
      offConnected();
    };
  }, [ws]);

  const config = useMemo(
    () => ({
      subscription: graphql`
        subscription LiveFeedPageSubscription($types: [String!], $after: ID) {
          events(types: $types, after: $after) {
            id
            type
            createdAt
            data
          }
        }
      `,
      variables: { types: types.length ? types : null, after: last.current },
      onNext: (r: LiveFeedPageSubscription$data | null | undefined) => {
        if (!r) return;
        const e = r.events;
        last.current = e.id;
        setEvents((prev) => (prev.some((p) => p.id === e.id) ? prev : [e, ...prev].slice(0, keep)));
      },
      onError: (err: Error) => {
        const e = asApiError(err);
        setError(e);
        if (e.code === "VALIDATION_FAILED" && e.fieldErrors.some((f) => f.field === "after")) {
          // Too far behind to replay: start live from now and say so.
          setNotice({ kind: "warn", text: `Too far behind to replay after ${last.current}: restarted from now. Older events are in the list queries.` });
          last.current = null;
          setEpoch((n) => n + 1);
        }
      },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [types.join(","), epoch],
  );
  useSubscription<LiveFeedPageSubscription>(config);

  const toggle = (t: string) => setTypes((cur) => (cur.includes(t) ? cur.filter((x) => x !== t) : [...cur, t]));
  const shown = types.length ? events.filter((e) => types.includes(e.type)) : events;

  return (
    <>
      <h1>Live feed</h1>
      <fieldset>
        <legend>Event types (none checked: all)</legend>
        <div className="grid-form">
          {eventTypes.map((t) => (
            <p key={t}>
              <input type="checkbox" id={`${id}-${t}`} checked={types.includes(t)} onChange={() => toggle(t)} />{" "}
              <label htmlFor={`${id}-${t}`} style={{ display: "inline" }}>
                {t}
              </label>
            </p>
          ))}
        </div>
      </fieldset>
      <div className="actions">
        <button type="button" onClick={() => ws.terminate()}>
          Reconnect
        </button>
        <button type="button" onClick={() => setEvents([])}>
          Clear
        </button>
      </div>
      <div role="status" aria-live="polite">
        {notice && <p className={notice.kind === "warn" ? "notice" : "help"}>{notice.text}</p>}
      </div>
      {error != null && <ErrorBox error={error} />}
      <p className="summary">
        {shown.length} events since this page opened{types.length ? ` (${types.join(", ")})` : ""}; newest first.
      </p>
      <ol className="feed" aria-label="Events">
        {shown.map((e) => (
          <li key={e.id} data-event-id={e.id}>
            <strong>{e.type}</strong> <span className="muted">{when(e.createdAt)}</span> <code>{e.id}</code>
            <pre>{JSON.stringify(e.data)}</pre>
          </li>
        ))}
      </ol>
    </>
  );
}
