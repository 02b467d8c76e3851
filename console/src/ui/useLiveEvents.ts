import { useEffect, useMemo, useRef } from "react";
import { graphql, useRelayEnvironment, useSubscription } from "react-relay/hooks";
import { fetchQuery, type GraphQLTaggedNode, type OperationType } from "relay-runtime";
import type { useLiveEventsSubscription, useLiveEventsSubscription$data } from "../__generated__/useLiveEventsSubscription.graphql";

export type LiveEvent = useLiveEventsSubscription$data["events"];

// useLiveEvents calls onEvent for each live event of the given types (all
// when empty) while the component is mounted.
export function useLiveEvents(types: readonly string[], onEvent: (e: LiveEvent) => void): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = types.join(",");
  const config = useMemo(
    () => ({
      subscription: graphql`
        subscription useLiveEventsSubscription($types: [String!]) {
          events(types: $types) {
            id
            type
            createdAt
            data
          }
        }
      `,
      variables: { types: types.length ? [...types] : null },
      onNext: (r: useLiveEventsSubscription$data | null | undefined) => {
        if (r) handler.current(r.events);
      },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [key],
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
  useLiveEvents(types, () => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      latest.current();
    }, 500);
  });
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
