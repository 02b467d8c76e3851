import { createContext, useContext, useEffect, useMemo, useRef, useState } from "react";
import { graphql, useRelayEnvironment, useSubscription } from "react-relay/hooks";
import { fetchQuery, type GraphQLTaggedNode, type OperationType } from "relay-runtime";
import type { useLiveEventsSubscription, useLiveEventsSubscription$data } from "../__generated__/useLiveEventsSubscription.graphql";
import { asApiError } from "../relay/errors";

export type LiveEvent = useLiveEventsSubscription$data["events"];

// LiveSince is the position of the event log (an event id, or the
// connection_ack's position) from before the current page read its data:
// the page's subscriptions start after it, so an event committed between
// the page's read and their start is replayed, not missed. Null: from the
// moment each subscription starts.
export const LiveSince = createContext<string | null>(null);

// useLiveEvents calls onEvent for each live event of the given types (all
// when empty) while the component is mounted, from LiveSince on. When that
// is further back than the service replays (VALIDATION_FAILED on after), it
// calls onResync and subscribes from now.
export function useLiveEvents(types: readonly string[], onEvent: (e: LiveEvent) => void, onResync?: () => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const resync = useRef(onResync);
  resync.current = onResync;
  const since = useContext(LiveSince);
  const [fromNow, setFromNow] = useState(false);
  const key = types.join(",");
  const config = useMemo(
    () => ({
      subscription: graphql`
        subscription useLiveEventsSubscription($types: [String!], $after: ID) {
          events(types: $types, after: $after) {
            id
            type
            createdAt
            data
          }
        }
      `,
      variables: { types: types.length ? [...types] : null, after: fromNow ? null : since },
      onNext: (r: useLiveEventsSubscription$data | null | undefined) => {
        if (r) handler.current(r.events);
      },
      onError: (err: Error) => {
        if (!fromNow && since !== null && asApiError(err).code === "VALIDATION_FAILED") {
          setFromNow(true);
          resync.current?.();
        }
      },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key, since, fromNow],
  );
  useSubscription<useLiveEventsSubscription>(config);
}

// useOnEvents calls fn at most once per half second while events of the
// given types arrive: a burst of events costs one re-read.
export function useOnEvents(types: readonly string[], fn: () => void): void {
  const timer = useRef<number | undefined>(undefined);
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const later = () => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      latest.current();
    }, 500);
  };
  useLiveEvents(types, later, later);
}

// useRefreshOn re-reads a query from the network (the store then updates
// every component showing it) when one of the events arrives, at most once
// per half second.
export function useRefreshOn<T extends OperationType>(types: readonly string[], query: GraphQLTaggedNode, variables: T["variables"]): void {
  const env = useRelayEnvironment();
  useOnEvents(types, () => {
    fetchQuery<T>(env, query, variables, { fetchPolicy: "network-only" }).subscribe({ error: () => {} });
  });
}
