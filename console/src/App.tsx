import { lazy, Suspense, useEffect, useMemo, useRef } from "react";
import type { Client } from "graphql-ws";
import { useCaps } from "./caps";
import { href, useRoute, type Route } from "./router";
import { ErrorBoundary } from "./ui/ErrorBoundary";
import { LiveSince } from "./ui/useLiveEvents";
import { OverviewPage } from "./pages/overview/OverviewPage";
import { AgentsPage } from "./pages/agents/AgentsPage";
import { ApprovalsPage } from "./pages/approvals/ApprovalsPage";

// The pages a session may never open load on demand (the agent page carries
// the chart library), so the first page's script stays small.
const AgentPage = lazy(() => import("./pages/agent/AgentPage").then((m) => ({ default: m.AgentPage })));
const LiveFeedPage = lazy(() => import("./pages/live/LiveFeedPage").then((m) => ({ default: m.LiveFeedPage })));
const WebhooksPage = lazy(() => import("./pages/webhooks/WebhooksPage").then((m) => ({ default: m.WebhooksPage })));
const KeysPage = lazy(() => import("./pages/keys/KeysPage").then((m) => ({ default: m.KeysPage })));

// Keys are for admin keys; the organization-wide overview is not readable
// by an agent key (it sees only what concerns its agents).
const nav: { page: Route["page"]; label: string; adminOnly?: boolean; notForAgentKeys?: boolean }[] = [
  { page: "overview", label: "Overview", notForAgentKeys: true },
  { page: "agents", label: "Agents" },
  { page: "approvals", label: "Approvals" },
  { page: "live", label: "Live feed" },
  { page: "webhooks", label: "Webhooks" },
  { page: "keys", label: "Keys", adminOnly: true },
];

export function App({ ws, livePosition, onSignOut }: { ws: Client; livePosition: () => string | null; onSignOut: () => void }) {
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  // Taken as the route changes, before the page reads its data: the page's
  // live subscriptions start there, so nothing committed meanwhile is missed.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const since = useMemo(() => livePosition(), [href(route)]);
  useEffect(() => {
    // A page change moves focus to the new page, as a full navigation would.
    main.current?.focus();
  }, [route.page, route.page === "agent" ? route.id : ""]);
  const current = route.page === "agent" ? "agents" : route.page;

  // The header (whoami) and the page (its own query) load side by side.
  return (
    <>
      <a className="skip" href="#main" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Agent Trust</span>
        <Suspense fallback={null}>
          <Nav current={current} />
        </Suspense>
        <span className="who">
          <Suspense fallback={null}>
            <Who />
          </Suspense>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <ErrorBoundary key={href(route)}>
          <LiveSince.Provider value={since}>
            <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
              <Page route={route} ws={ws} />
            </Suspense>
          </LiveSince.Provider>
        </ErrorBoundary>
      </main>
    </>
  );
}

function Nav({ current }: { current: Route["page"] }) {
  const caps = useCaps();
  return (
    <nav aria-label="Pages">
      <ul>
        {nav
          .filter((n) => (!n.adminOnly || caps.admin) && !(n.notForAgentKeys && caps.role === "agent"))
          .map((n) => (
            <li key={n.page}>
              <a href={href({ page: n.page } as Route)} aria-current={current === n.page ? "page" : undefined}>
                {n.label}
              </a>
            </li>
          ))}
      </ul>
    </nav>
  );
}

function Who() {
  const caps = useCaps();
  return (
    <span className={`role role-${caps.role}`} title={caps.keyId}>
      {caps.name || caps.keyId} · {caps.role}
    </span>
  );
}

function Page({ route, ws }: { route: Route; ws: Client }) {
  const caps = useCaps();
  switch (route.page) {
    case "overview":
      return caps.role === "agent" ? <AgentsPage /> : <OverviewPage />;
    case "agents":
      return <AgentsPage />;
    case "agent":
      return <AgentPage id={route.id} />;
    case "approvals":
      return <ApprovalsPage />;
    case "live":
      return <LiveFeedPage ws={ws} />;
    case "webhooks":
      return <WebhooksPage />;
    case "keys":
      return <KeysPage />;
  }
}
