import { Suspense, useEffect, useRef } from "react";
import { graphql, useLazyLoadQuery } from "react-relay";
import type { Client } from "graphql-ws";
import type { AppWhoamiQuery } from "./__generated__/AppWhoamiQuery.graphql";
import { CapsContext, capsOf } from "./caps";
import { href, useRoute, type Route } from "./router";
import { ErrorBoundary } from "./ui/ErrorBoundary";
import { OverviewPage } from "./pages/overview/OverviewPage";
import { AgentsPage } from "./pages/agents/AgentsPage";
import { AgentPage } from "./pages/agent/AgentPage";
import { ApprovalsPage } from "./pages/approvals/ApprovalsPage";
import { LiveFeedPage } from "./pages/live/LiveFeedPage";
import { WebhooksPage } from "./pages/webhooks/WebhooksPage";
import { KeysPage } from "./pages/keys/KeysPage";

const nav: { page: Route["page"]; label: string; adminOnly?: boolean }[] = [
  { page: "overview", label: "Overview" },
  { page: "agents", label: "Agents" },
  { page: "approvals", label: "Approvals" },
  { page: "live", label: "Live feed" },
  { page: "webhooks", label: "Webhooks" },
  { page: "keys", label: "Keys", adminOnly: true },
];

export function App({ ws, onSignOut }: { ws: Client; onSignOut: () => void }) {
  const data = useLazyLoadQuery<AppWhoamiQuery>(
    graphql`
      query AppWhoamiQuery {
        whoami {
          id
          name
          role
          agentIds
        }
      }
    `,
    {},
  );
  const caps = capsOf(data.whoami);
  const route = useRoute();
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    // A page change moves focus to the new page, as a full navigation would.
    main.current?.focus();
  }, [route.page, route.page === "agent" ? route.id : ""]);
  const current = route.page === "agent" ? "agents" : route.page;

  return (
    <CapsContext.Provider value={caps}>
      <a className="skip" href="#main" onClick={(e) => { e.preventDefault(); main.current?.focus(); }}>
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Agent Trust</span>
        <nav aria-label="Pages">
          <ul>
            {nav
              .filter((n) => !n.adminOnly || caps.admin)
              .map((n) => (
                <li key={n.page}>
                  <a href={href({ page: n.page } as Route)} aria-current={current === n.page ? "page" : undefined}>
                    {n.label}
                  </a>
                </li>
              ))}
          </ul>
        </nav>
        <span className="who">
          <span className={`role role-${caps.role}`} title={caps.keyId}>
            {caps.name || caps.keyId} · {caps.role}
          </span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <ErrorBoundary key={href(route)}>
          <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
            <Page route={route} ws={ws} />
          </Suspense>
        </ErrorBoundary>
      </main>
    </CapsContext.Provider>
  );
}

function Page({ route, ws }: { route: Route; ws: Client }) {
  switch (route.page) {
    case "overview":
      return <OverviewPage />;
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
