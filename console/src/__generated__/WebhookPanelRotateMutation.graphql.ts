/**
 * @generated SignedSource<<fb2408d847458c6b9c3882db4a63191d>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type WebhookPanelRotateMutation$variables = {
  id: string;
};
export type WebhookPanelRotateMutation$data = {
  readonly rotateWebhookSecret: {
    readonly id: string;
    readonly secret: string | null | undefined;
  };
};
export type WebhookPanelRotateMutation = {
  response: WebhookPanelRotateMutation$data;
  variables: WebhookPanelRotateMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "id"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "id",
        "variableName": "id"
      }
    ],
    "concreteType": "Webhook",
    "kind": "LinkedField",
    "name": "rotateWebhookSecret",
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
        "name": "secret",
        "storageKey": null
      }
    ],
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "WebhookPanelRotateMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "WebhookPanelRotateMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "3e7f989a47332b23f367f28200269452",
    "id": null,
    "metadata": {},
    "name": "WebhookPanelRotateMutation",
    "operationKind": "mutation",
    "text": "mutation WebhookPanelRotateMutation(\n  $id: ID!\n) {\n  rotateWebhookSecret(id: $id) {\n    id\n    secret\n  }\n}\n"
  }
};
})();

(node as any).hash = "02825c1c68e2f86e06c12c993e8cbfe9";

export default node;
