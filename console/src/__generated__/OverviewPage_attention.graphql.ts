/**
 * @generated SignedSource<<01746e8c6c0c2d2d41b4d85b825fb9fe>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type OverviewPage_attention$data = {
  readonly openDisputes: number;
  readonly pendingApprovals: number;
  readonly webhooksDisabled: number;
  readonly webhooksFailing: number;
  readonly " $fragmentType": "OverviewPage_attention";
};
export type OverviewPage_attention$key = {
  readonly " $data"?: OverviewPage_attention$data;
  readonly " $fragmentSpreads": FragmentRefs<"OverviewPage_attention">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "OverviewPage_attention",
  "selections": [
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
  "type": "Overview",
  "abstractKey": null
};

(node as any).hash = "f7485ea774b499fd319e9fe6a40f572a";

export default node;
