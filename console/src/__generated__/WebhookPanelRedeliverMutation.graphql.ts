/**
 * @generated SignedSource<<b95322d0bddbd2d3337187f14625c490>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type WebhookPanelRedeliverMutation$variables = {
  eventId: string;
  webhookId: string;
};
export type WebhookPanelRedeliverMutation$data = {
  readonly redeliverEvent: boolean;
};
export type WebhookPanelRedeliverMutation = {
  response: WebhookPanelRedeliverMutation$data;
  variables: WebhookPanelRedeliverMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "eventId"
},
v1 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "webhookId"
},
v2 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "eventId",
        "variableName": "eventId"
      },
      {
        "kind": "Variable",
        "name": "webhookId",
        "variableName": "webhookId"
      }
    ],
    "kind": "ScalarField",
    "name": "redeliverEvent",
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": [
      (v0/*:: as any*/),
      (v1/*:: as any*/)
    ],
    "kind": "Fragment",
    "metadata": null,
    "name": "WebhookPanelRedeliverMutation",
    "selections": (v2/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [
      (v1/*:: as any*/),
      (v0/*:: as any*/)
    ],
    "kind": "Operation",
    "name": "WebhookPanelRedeliverMutation",
    "selections": (v2/*:: as any*/)
  },
  "params": {
    "cacheID": "cf03d82a9a23760c4b59e9c089f7c502",
    "id": null,
    "metadata": {},
    "name": "WebhookPanelRedeliverMutation",
    "operationKind": "mutation",
    "text": "mutation WebhookPanelRedeliverMutation(\n  $webhookId: ID!\n  $eventId: ID!\n) {\n  redeliverEvent(webhookId: $webhookId, eventId: $eventId)\n}\n"
  }
};
})();

(node as any).hash = "a7d8e91c7d445fdef9220768c890dd5f";

export default node;
