/**
 * @generated SignedSource<<8ffbf7e35254468f41d720ccd16b63dd>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type LiveFeedPageSubscription$variables = {
  after?: string | null | undefined;
  types?: ReadonlyArray<string> | null | undefined;
};
export type LiveFeedPageSubscription$data = {
  readonly events: {
    readonly createdAt: string;
    readonly data: unknown;
    readonly id: string;
    readonly type: string;
  };
};
export type LiveFeedPageSubscription = {
  response: LiveFeedPageSubscription$data;
  variables: LiveFeedPageSubscription$variables;
};

const node: ConcreteRequest = (function(){
var v0 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "after"
},
v1 = {
  "defaultValue": null,
  "kind": "LocalArgument",
  "name": "types"
},
v2 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "after",
        "variableName": "after"
      },
      {
        "kind": "Variable",
        "name": "types",
        "variableName": "types"
      }
    ],
    "concreteType": "Event",
    "kind": "LinkedField",
    "name": "events",
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
        "name": "type",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "createdAt",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "data",
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
    "name": "LiveFeedPageSubscription",
    "selections": (v2/*:: as any*/),
    "type": "Subscription",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [
      (v1/*:: as any*/),
      (v0/*:: as any*/)
    ],
    "kind": "Operation",
    "name": "LiveFeedPageSubscription",
    "selections": (v2/*:: as any*/)
  },
  "params": {
    "cacheID": "5d6bbd6248a4346d4dd720a9ded6e7a4",
    "id": null,
    "metadata": {},
    "name": "LiveFeedPageSubscription",
    "operationKind": "subscription",
    "text": "subscription LiveFeedPageSubscription(\n  $types: [String!]\n  $after: ID\n) {\n  events(types: $types, after: $after) {\n    id\n    type\n    createdAt\n    data\n  }\n}\n"
  }
};
})();

(node as any).hash = "7058aae5f0e127dd026a9919373ec03d";

export default node;
