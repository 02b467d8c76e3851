// ApiError is an error the API answered: its contract code (extensions.code),
// its message, and the code-specific extensions (fieldErrors, reasonCode, ...).
export type FieldError = { field: string; message: string };

export type GraphQLErrorJSON = {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; fieldErrors?: FieldError[]; reasonCode?: string; reason?: string; retryAfter?: number; [k: string]: unknown };
};

export class ApiError extends Error {
  readonly code: string;
  readonly errors: GraphQLErrorJSON[];

  constructor(errors: GraphQLErrorJSON[], status?: number) {
    const first = errors[0] ?? { message: `HTTP ${status ?? "error"}` };
    super(first.message);
    this.name = "ApiError";
    this.code = first.extensions?.code ?? (status ? `HTTP_${status}` : "NETWORK_ERROR");
    this.errors = errors.length ? errors : [first];
  }

  get reasonCode(): string | undefined {
    return this.errors[0]?.extensions?.reasonCode;
  }

  get fieldErrors(): FieldError[] {
    return this.errors.flatMap((e) => e.extensions?.fieldErrors ?? []);
  }
}

// asApiError turns anything thrown on the way to the API into an ApiError.
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (Array.isArray(err)) return new ApiError(err as GraphQLErrorJSON[]);
  if (err && typeof err === "object" && "code" in err && "reason" in err) {
    const ev = err as { code: number; reason: string };
    // The service's close codes (docs/live-events.md) carry the contract's codes.
    const code = ev.code === 4401 ? "UNAUTHENTICATED" : ev.code === 4429 ? "RATE_LIMITED" : `CLOSED_${ev.code}`;
    return new ApiError([{ message: ev.reason || `the live connection closed (${ev.code})`, extensions: { code } }]);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError([{ message, extensions: { code: "NETWORK_ERROR" } }]);
}
