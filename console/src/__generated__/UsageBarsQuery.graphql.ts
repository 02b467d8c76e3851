/**
 * @generated SignedSource<<8e4b69d8aac0851868ec135526847040>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type LimitWindow = "day" | "month" | "total" | "week";
export type WindowMode = "calendar" | "rolling";
export type UsageBarsQuery$variables = {
  id: string;
};
export type UsageBarsQuery$data = {
  readonly node: {
    readonly currency?: string;
    readonly policyUsage?: {
      readonly spendLimits: ReadonlyArray<{
        readonly actions: ReadonlyArray<string> | null | undefined;
        readonly freesUpAt: string | null | undefined;
        readonly limit: number | string;
        readonly mode: WindowMode;
        readonly remaining: number | string;
        readonly resetsAt: string | null | undefined;
        readonly used: number | string;
        readonly window: LimitWindow;
      }>;
      readonly velocityLimits: ReadonlyArray<{
        readonly actions: ReadonlyArray<string> | null | undefined;
        readonly count: number;
        readonly maxCount: number;
        readonly windowSeconds: number;
      }>;
    };
  } | null | undefined;
};
export type UsageBarsQuery = {
  response: UsageBarsQuery$data;
  variables: UsageBarsQuery$variables;
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
    "kind": "Variable",
    "name": "id",
    "variableName": "id"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "actions",
  "storageKey": null
},
v3 = {
  "kind": "InlineFragment",
  "selections": [
    {
      "alias": null,
      "args": null,
      "kind": "ScalarField",
      "name": "currency",
      "storageKey": null
    },
    {
      "alias": null,
      "args": null,
      "concreteType": "PolicyUsage",
      "kind": "LinkedField",
      "name": "policyUsage",
      "plural": false,
      "selections": [
        {
          "alias": null,
          "args": null,
          "concreteType": "LimitUsage",
          "kind": "LinkedField",
          "name": "spendLimits",
          "plural": true,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "window",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "mode",
              "storageKey": null
            },
            (v2/*:: as any*/),
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "limit",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "used",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "remaining",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "resetsAt",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "freesUpAt",
              "storageKey": null
            }
          ],
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "concreteType": "VelocityUsage",
          "kind": "LinkedField",
          "name": "velocityLimits",
          "plural": true,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "windowSeconds",
              "storageKey": null
            },
            (v2/*:: as any*/),
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "maxCount",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "count",
              "storageKey": null
            }
          ],
          "storageKey": null
        }
      ],
      "storageKey": null
    }
  ],
  "type": "Agent",
  "abstractKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "UsageBarsQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": null,
        "kind": "LinkedField",
        "name": "node",
        "plural": false,
        "selections": [
          (v3/*:: as any*/)
        ],
        "storageKey": null
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "UsageBarsQuery",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": null,
        "kind": "LinkedField",
        "name": "node",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "__typename",
            "storageKey": null
          },
          (v3/*:: as any*/),
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "id",
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "35f38f7b7c01d117942bd3d6c323adbb",
    "id": null,
    "metadata": {},
    "name": "UsageBarsQuery",
    "operationKind": "query",
    "text": "query UsageBarsQuery(\n  $id: ID!\n) {\n  node(id: $id) {\n    __typename\n    ... on Agent {\n      currency\n      policyUsage {\n        spendLimits {\n          window\n          mode\n          actions\n          limit\n          used\n          remaining\n          resetsAt\n          freesUpAt\n        }\n        velocityLimits {\n          windowSeconds\n          actions\n          maxCount\n          count\n        }\n      }\n    }\n    id\n  }\n}\n"
  }
};
})();

(node as any).hash = "646bd74dbd9821c2020df0023a82b3f7";

export default node;
