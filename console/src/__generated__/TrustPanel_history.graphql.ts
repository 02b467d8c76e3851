/**
 * @generated SignedSource<<f69cdd5257b511e20018bd0b9919142d>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type TrustPanel_history$data = {
  readonly trustHistory: ReadonlyArray<{
    readonly assessment: string;
    readonly cause: string | null | undefined;
    readonly score: number;
    readonly timestamp: string;
  }>;
  readonly " $fragmentType": "TrustPanel_history";
};
export type TrustPanel_history$key = {
  readonly " $data"?: TrustPanel_history$data;
  readonly " $fragmentSpreads": FragmentRefs<"TrustPanel_history">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [
    {
      "defaultValue": null,
      "kind": "LocalArgument",
      "name": "agentId"
    }
  ],
  "kind": "Fragment",
  "metadata": null,
  "name": "TrustPanel_history",
  "selections": [
    {
      "alias": null,
      "args": [
        {
          "kind": "Variable",
          "name": "agentId",
          "variableName": "agentId"
        }
      ],
      "concreteType": "TrustSnapshot",
      "kind": "LinkedField",
      "name": "trustHistory",
      "plural": true,
      "selections": [
        {
          "alias": null,
          "args": null,
          "kind": "ScalarField",
          "name": "timestamp",
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "kind": "ScalarField",
          "name": "score",
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "kind": "ScalarField",
          "name": "assessment",
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "kind": "ScalarField",
          "name": "cause",
          "storageKey": null
        }
      ],
      "storageKey": null
    }
  ],
  "type": "Query",
  "abstractKey": null
};

(node as any).hash = "d59f199831385812250a2cc07d8f71f4";

export default node;
