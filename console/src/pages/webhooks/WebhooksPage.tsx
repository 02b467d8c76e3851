import { graphql, useLazyLoadQuery } from "react-relay/hooks";
import type { WebhooksPageQuery } from "../../__generated__/WebhooksPageQuery.graphql";
import { WebhookPanel } from "./WebhookPanel";

export function WebhooksPage() {
  const data = useLazyLoadQuery<WebhooksPageQuery>(
    graphql`
      query WebhooksPageQuery {
        webhooks {
          id
          ...WebhookPanel_webhook
        }
      }
    `,
    {},
    { fetchPolicy: "store-and-network" },
  );
  return (
    <>
      <h1>Webhooks</h1>
      {data.webhooks.length === 0 && (
        <p>
          No endpoints. Register one with <code>registerWebhook</code> or <code>POST /webhooks</code> (docs/webhooks.md).
        </p>
      )}
      {data.webhooks.map((w) => (
        <WebhookPanel key={w.id} webhook={w} />
      ))}
    </>
  );
}
