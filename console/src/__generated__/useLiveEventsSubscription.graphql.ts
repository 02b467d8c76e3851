/**
 * @generated SignedSource<<3dfe25b36a91ca81e3d86149c7660c1a>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type useLiveEventsSubscription$variables = {
  after?: string | null | undefined;
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
    "name": "useLiveEventsSubscription",
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
    "name": "useLiveEventsSubscription",
    "selections": (v2/*:: as any*/)
  },
  "params": {
    "cacheID": "4462fa5e0c8f0cd83d5ab176bc50807f",
    "id": null,
    "metadata": {},
    "name": "useLiveEventsSubscription",
    "operationKind": "subscription",
    "text": "subscription useLiveEventsSubscription(\n  $types: [String!]\n  $after: ID\n) {\n  events(types: $types, after: $after) {\n    id\n    type\n    createdAt\n    data\n  }\n}\n"
  }
};
})();

(node as any).hash = "219c01786b895a5923479a980ca8f463";

export default node;
