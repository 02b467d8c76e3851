import { useEffect, useState } from "react";

// Routes live in the URL's fragment (#/agents/agent_…), so /console serves
// every page and no key or secret ever appears in a route.
export type Route =
  | { page: "overview" }
  | { page: "agents" }
  | { page: "agent"; id: string }
  | { page: "approvals" }
  | { page: "live" }
  | { page: "webhooks" }
  | { page: "keys" };

export function parse(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case "agents":
      return parts[1] ? { page: "agent", id: parts[1] } : { page: "agents" };
    case "approvals":
    case "live":
    case "webhooks":
    case "keys":
      return { page: parts[0] };
    default:
      return { page: "overview" };
  }
}

export function href(route: Route): string {
  return route.page === "agent" ? `#/agents/${encodeURIComponent(route.id)}` : `#/${route.page}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const on = () => setRoute(parse(location.hash));
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}
