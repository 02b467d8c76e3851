import { Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { RelayEnvironmentProvider } from "react-relay/hooks";
import { connect } from "./relay/environment";
import type { ApiError } from "./relay/errors";
import { forgetKey, storeKey, storedKey } from "./session";
import { SignIn } from "./SignIn";
import { App } from "./App";
import { ErrorBoundary } from "./ui/ErrorBoundary";

// Root holds the signed-in key's Relay environment; signing out (or the API
// refusing the key) drops it, and with it every cached record.
export function Root() {
  const [key, setKey] = useState<string | null>(() => storedKey());
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const signOut = useCallback((why?: ApiError) => {
    forgetKey();
    setKey(null);
    setRefusal(why ?? null);
  }, []);
  const conn = useMemo(() => (key ? connect(key, (e) => signOut(e)) : null), [key, signOut]);
  useEffect(() => () => conn?.dispose(), [conn]);

  if (!conn) {
    return (
      <SignIn
        refusal={refusal}
        onSignIn={(k) => {
          storeKey(k);
          setRefusal(null);
          setKey(k);
        }}
      />
    );
  }
  return (
    <RelayEnvironmentProvider environment={conn.environment}>
      <ErrorBoundary onSignOut={() => signOut()}>
        <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
          <App ws={conn.ws} livePosition={conn.position} onSignOut={() => signOut()} />
        </Suspense>
      </ErrorBoundary>
    </RelayEnvironmentProvider>
  );
}
