/**
 * @generated SignedSource<<9518108d5e2afea617ddeeab77b8a6a4>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type OverviewPage_counts$data = {
  readonly agentsByAssessment: ReadonlyArray<{
    readonly count: number;
    readonly key: string;
  }>;
  readonly agentsByStatus: ReadonlyArray<{
    readonly count: number;
    readonly key: string;
  }>;
  readonly transactionsLast24h: ReadonlyArray<{
    readonly count: number;
    readonly key: string;
  }>;
  readonly " $fragmentType": "OverviewPage_counts";
};
export type OverviewPage_counts$key = {
  readonly " $data"?: OverviewPage_counts$data;
  readonly " $fragmentSpreads": FragmentRefs<"OverviewPage_counts">;
};

const node: ReaderFragment = (function(){
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
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "OverviewPage_counts",
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
    }
  ],
  "type": "Overview",
  "abstractKey": null
};
})();

(node as any).hash = "cbac60bbaf041fd77c0516adf9efc818";

export default node;
