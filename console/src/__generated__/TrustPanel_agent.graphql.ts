/**
 * @generated SignedSource<<1e81e743731b6d3647da176c93a9e94f>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type TrustPanel_agent$data = {
  readonly trust: {
    readonly assessment: string;
    readonly contributions: ReadonlyArray<{
      readonly description: string;
      readonly factor: string;
      readonly points: number;
    }>;
    readonly factors: {
      readonly completionRate: number;
      readonly confidence: number;
      readonly volume: number;
    };
    readonly score: number;
    readonly updatedAt: string;
  };
  readonly " $fragmentType": "TrustPanel_agent";
};
export type TrustPanel_agent$key = {
  readonly " $data"?: TrustPanel_agent$data;
  readonly " $fragmentSpreads": FragmentRefs<"TrustPanel_agent">;
};

const node: ReaderFragment = {
  "argumentDefinitions": [],
  "kind": "Fragment",
  "metadata": null,
  "name": "TrustPanel_agent",
  "selections": [
    {
      "alias": null,
      "args": null,
      "concreteType": "TrustProfile",
      "kind": "LinkedField",
      "name": "trust",
      "plural": false,
      "selections": [
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
          "name": "updatedAt",
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "concreteType": "TrustFactors",
          "kind": "LinkedField",
          "name": "factors",
          "plural": false,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "confidence",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "volume",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "completionRate",
              "storageKey": null
            }
          ],
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "concreteType": "TrustContribution",
          "kind": "LinkedField",
          "name": "contributions",
          "plural": true,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "factor",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "points",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "description",
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

(node as any).hash = "945a851e8649aa2d64c4f7fec52e4721";

export default node;
