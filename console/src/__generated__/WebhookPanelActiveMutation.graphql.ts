/**
 * @generated SignedSource<<124d467c930939096444b03dd61e1aba>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type WebhookPanelActiveMutation$variables = {
  active: boolean;
  id: string;
};
export type WebhookPanelActiveMutation$data = {
  readonly updateWebhook: {
    readonly active: boolean;
    readonly consecutiveFailures: number;
    readonly id: string;
  };
};
export type WebhookPanelActiveMutation = {
  response: WebhookPanelActiveMutation$data;
  variables: WebhookPanelActiveMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "active"
},
v1 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "id"
},
v2 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "id",
        "variableName": "id"
      },
      {
        "fields": [
          {
            "kind": "Variable",
            "name": "active",
            "variableName": "active"
          }
        ],
        "kind": "ObjectValue",
        "name": "input"
      }
    ],
    "concreteType": "Webhook",
    "kind": "LinkedField",
    "name": "updateWebhook",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "id",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "active",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "consecutiveFailures",
        "storageKey": null
      }
    ],
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
    "name": "WebhookPanelActiveMutation",
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
    "name": "WebhookPanelActiveMutation",
    "selections": (v2/*:: as any*/)
  },
  "params": {
    "cacheID": "4831691121ca4f8cb15e2e90a6fcb9c2",
    "id": null,
    "metadata": {},
    "name": "WebhookPanelActiveMutation",
    "operationKind": "mutation",
    "text": "mutation WebhookPanelActiveMutation(\n  $id: ID!\n  $active: Boolean!\n) {\n  updateWebhook(id: $id, input: {active: $active}) {\n    id\n    active\n    consecutiveFailures\n  }\n}\n"
  }
};
})();

(node as any).hash = "a46e2313ae22f8d0949207213557c4b7";

export default node;
