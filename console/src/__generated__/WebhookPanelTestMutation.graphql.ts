/**
 * @generated SignedSource<<959b20fffa0eacf941902ad5c505d9bf>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type WebhookPanelTestMutation$variables = {
  id: string;
};
export type WebhookPanelTestMutation$data = {
  readonly testWebhook: {
    readonly statusCode: number;
    readonly success: boolean;
  };
};
export type WebhookPanelTestMutation = {
  response: WebhookPanelTestMutation$data;
  variables: WebhookPanelTestMutation$variables;
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
    "concreteType": "WebhookTestResult",
    "kind": "LinkedField",
    "name": "testWebhook",
    "plural": false,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "statusCode",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "success",
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
    "name": "WebhookPanelTestMutation",
    "selections": (v1/*:: as any*/),
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "WebhookPanelTestMutation",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "fd4720cadd1c8e005648f7c8a356df48",
    "id": null,
    "metadata": {},
    "name": "WebhookPanelTestMutation",
    "operationKind": "mutation",
    "text": "mutation WebhookPanelTestMutation(\n  $id: ID!\n) {\n  testWebhook(id: $id) {\n    statusCode\n    success\n  }\n}\n"
  }
};
})();

(node as any).hash = "c3c0c223203b92376e5512e73189a0d9";

export default node;
