/**
 * @generated SignedSource<<4c1eb820170fba0ff7ecea58c57fbe74>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type useLiveEventsSubscription$variables = {
  types?: ReadonlyArray<string> | null | undefined;
};
export type useLiveEventsSubscription$data = {
  readonly events: {
    readonly createdAt: string;
    readonly data: unknown;
    readonly id: string;
    readonly type: string;
  };
};
export type useLiveEventsSubscription = {
  response: useLiveEventsSubscription$data;
  variables: useLiveEventsSubscription$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "types"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
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
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "useLiveEventsSubscription",
    "selections": (v1/*:: as any*/),
    "type": "Subscription",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "useLiveEventsSubscription",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "fb5dd61c762833eb21c8b3019cb6d7cc",
    "id": null,
    "metadata": {},
    "name": "useLiveEventsSubscription",
    "operationKind": "subscription",
    "text": "subscription useLiveEventsSubscription(\n  $types: [String!]\n) {\n  events(types: $types) {\n    id\n    type\n    createdAt\n    data\n  }\n}\n"
  }
};
})();

(node as any).hash = "7a0b8524e5f4403a13b9fe1232393656";

export default node;
