/**
 * @generated SignedSource<<167869166686f617acafda74b2cea3e6>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type OverviewPageQuery$variables = Record<PropertyKey, never>;
export type OverviewPageQuery$data = {
  readonly overview: {
    readonly " $fragmentSpreads": FragmentRefs<"OverviewPage_attention" | "OverviewPage_counts">;
  };
};
export type OverviewPageQuery = {
  response: OverviewPageQuery$data;
  variables: OverviewPageQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "alias": null,
    "args": null,
    "kind": "ScalarField",
    "name": "key",
    "storageKey": null
  },
  {
    "alias": null,
    "args": null,
    "kind": "ScalarField",
    "name": "count",
    "storageKey": null
  }
];
return {
  "fragment": {
    "argumentDefinitions": [],
    "kind": "Fragment",
    "metadata": null,
    "name": "OverviewPageQuery",
    "selections": [
      {
        "alias": null,
        "args": null,
        "concreteType": "Overview",
        "kind": "LinkedField",
        "name": "overview",
        "plural": false,
        "selections": [
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "OverviewPage_counts"
          },
          {
            "args": null,
            "kind": "FragmentSpread",
            "name": "OverviewPage_attention"
          }
        ],
        "storageKey": null
      }
    ],
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": [],
    "kind": "Operation",
    "name": "OverviewPageQuery",
    "selections": [
      {
        "alias": null,
        "args": null,
        "concreteType": "Overview",
        "kind": "LinkedField",
        "name": "overview",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "concreteType": "CountByKey",
            "kind": "LinkedField",
            "name": "agentsByStatus",
            "plural": true,
            "selections": (v0/*:: as any*/),
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "concreteType": "CountByKey",
            "kind": "LinkedField",
            "name": "agentsByAssessment",
            "plural": true,
            "selections": (v0/*:: as any*/),
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "concreteType": "CountByKey",
            "kind": "LinkedField",
            "name": "transactionsLast24h",
            "plural": true,
            "selections": (v0/*:: as any*/),
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "pendingApprovals",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "openDisputes",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "webhooksFailing",
            "storageKey": null
          },
          {
            "alias": null,
            "args": null,
            "kind": "ScalarField",
            "name": "webhooksDisabled",
            "storageKey": null
          }
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "78b0867c1877e9f9f33cd449102e37f6",
    "id": null,
    "metadata": {},
    "name": "OverviewPageQuery",
    "operationKind": "query",
    "text": "query OverviewPageQuery {\n  overview {\n    ...OverviewPage_counts\n    ...OverviewPage_attention\n  }\n}\n\nfragment OverviewPage_attention on Overview {\n  pendingApprovals\n  openDisputes\n  webhooksFailing\n  webhooksDisabled\n}\n\nfragment OverviewPage_counts on Overview {\n  agentsByStatus {\n    key\n    count\n  }\n  agentsByAssessment {\n    key\n    count\n  }\n  transactionsLast24h {\n    key\n    count\n  }\n}\n"
  }
};
})();

(node as any).hash = "732816c0f541bcce9fa6c22d8ceccda4";

export default node;
