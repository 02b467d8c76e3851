import { Environment, Network, Observable, RecordSource, Store, type FetchFunction, type SubscribeFunction, type GraphQLResponse } from "relay-runtime";
import { createClient, type Client } from "graphql-ws";
import { ApiError, asApiError, type GraphQLErrorJSON } from "./errors";

export type LiveStatus = { state: "connecting" | "connected" | "closed"; code?: number; reason?: string; retrying?: boolean };

export type Connection = {
  environment: Environment;
  ws: Client;
  // position is the newest point of the event log this connection knows to
  // be behind it: the last event delivered on any subscription, or the
  // latest connection_ack's position; null before the first.
  position: () => string | null;
  dispose: () => void;
};

// connect builds the Relay environment for one API key: queries and mutations
// POST to /graphql, subscriptions go over one graphql-transport-ws websocket
// (the graphql-ws client) to the same origin, the key in connection_init.
// onUnauthenticated runs when the API refuses the key.
export function connect(key: string, onUnauthenticated: (e: ApiError) => void): Connection {
  const fetchFn: FetchFunction = async (request, variables) => {
    let res: Response;
    try {
      res = await fetch("/graphql", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
          Accept: "application/graphql-response+json, application/json",
        },
        body: JSON.stringify({ query: request.text, variables, operationName: request.name }),
        credentials: "omit",
        referrerPolicy: "no-referrer",
      });
    } catch (err) {
      throw asApiError(err);
    }
    let body: { data?: unknown; errors?: GraphQLErrorJSON[] };
    try {
      body = await res.json();
    } catch {
      throw new ApiError([], res.status);
    }
    if (body.errors?.length) {
      const e = new ApiError(body.errors, res.status);
      if (e.code === "UNAUTHENTICATED") onUnauthenticated(e);
      throw e;
    }
    return body as GraphQLResponse;
  };

  const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`;
  const ws = createClient({
    url,
    lazy: true,
    connectionParams: { Authorization: `Bearer ${key}` },
    retryAttempts: Infinity,
    shouldRetry: (ev) => {
      const code = (ev as { code?: number }).code;
      return code !== 4401 && code !== 4403 && code !== 4400;
    },
  });

  let position: string | null = null;
  ws.on("connected", (_socket, payload) => {
    const p = (payload as { position?: unknown } | undefined)?.position;
    if (typeof p === "string") position = p;
  });

  // Every (re)subscription sends the same payload object: the graphql-ws
  // client re-sends it on each retry, so an operation that takes `$after`
  // resumes after the last event it delivered, with no gap and no duplicate.
  const subscribe: SubscribeFunction = (request, variables) =>
    Observable.create<GraphQLResponse>((sink) => {
      const payload = { query: request.text ?? "", operationName: request.name, variables: { ...variables } as Record<string, unknown> };
      const resumable = /\$after\b/.test(payload.query);
      return ws.subscribe<Record<string, { id?: string } | undefined>>(payload, {
        next: (value) => {
          if (value.errors?.length) {
            sink.error(new ApiError(value.errors as unknown as GraphQLErrorJSON[]));
            return;
          }
          const first = value.data ? Object.values(value.data)[0] : undefined;
          if (first?.id) {
            position = first.id;
            if (resumable) payload.variables.after = first.id;
          }
          sink.next(value as GraphQLResponse);
        },
        error: (err) => {
          const e = asApiError(err);
          if (e.code === "UNAUTHENTICATED") onUnauthenticated(e);
          sink.error(e);
        },
        complete: () => sink.complete(),
      });
    });

  const environment = new Environment({
    network: Network.create(fetchFn, subscribe),
    store: new Store(new RecordSource()),
  });
  return { environment, ws, position: () => position, dispose: () => void ws.dispose() };
}
