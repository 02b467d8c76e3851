/**
 * @generated SignedSource<<5a4be7c6b2c67a6ff86a0b301d937ae8>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
export type SpendBucket = "DAY" | "HOUR";
export type SpendChartQuery$variables = {
  agentId: string;
  bucket: SpendBucket;
  since: string;
  until: string;
};
export type SpendChartQuery$data = {
  readonly spendSeries: ReadonlyArray<{
    readonly amount: number | string;
    readonly count: number;
    readonly start: string;
  }>;
};
export type SpendChartQuery = {
  response: SpendChartQuery$data;
  variables: SpendChartQuery$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "agentId"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "bucket"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "since"
  },
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "until"
  }
],
v1 = [
  {
    "alias": null,
    "args": [
      {
        "kind": "Variable",
        "name": "agentId",
        "variableName": "agentId"
      },
      {
        "kind": "Variable",
        "name": "bucket",
        "variableName": "bucket"
      },
      {
        "kind": "Variable",
        "name": "since",
        "variableName": "since"
      },
      {
        "kind": "Variable",
        "name": "until",
        "variableName": "until"
      }
    ],
    "concreteType": "SpendPoint",
    "kind": "LinkedField",
    "name": "spendSeries",
    "plural": true,
    "selections": [
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "start",
        "storageKey": null
      },
      {
        "alias": null,
        "args": null,
        "kind": "ScalarField",
        "name": "amount",
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
];
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "SpendChartQuery",
    "selections": (v1/*:: as any*/),
    "type": "Query",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "SpendChartQuery",
    "selections": (v1/*:: as any*/)
  },
  "params": {
    "cacheID": "3d6d82248a6f1ac0d7f06b3e0cb1e180",
    "id": null,
    "metadata": {},
    "name": "SpendChartQuery",
    "operationKind": "query",
    "text": "query SpendChartQuery(\n  $agentId: ID!\n  $bucket: SpendBucket!\n  $since: Time!\n  $until: Time!\n) {\n  spendSeries(agentId: $agentId, bucket: $bucket, since: $since, until: $until) {\n    start\n    amount\n    count\n  }\n}\n"
  }
};
})();

(node as any).hash = "1fc80b64c37eea16d985e4beb70033c3";

export default node;
