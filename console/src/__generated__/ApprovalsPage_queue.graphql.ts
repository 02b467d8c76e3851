/**
 * @generated SignedSource<<82e15478671d7b438781713267b66bd7>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ReaderFragment } from 'relay-runtime';
export type TransactionStatus = "completed" | "declined" | "expired" | "pending_approval" | "reversed";
import { FragmentRefs } from "relay-runtime";
export type ApprovalsPage_queue$data = {
  readonly pending: {
    readonly edges: ReadonlyArray<{
      readonly node: {
        readonly id: string;
        readonly status: TransactionStatus;
        readonly " $fragmentSpreads": FragmentRefs<"ApprovalRow_transaction">;
      };
    }>;
    readonly totalCount: number;
  };
  readonly " $fragmentType": "ApprovalsPage_queue";
};
export type ApprovalsPage_queue$key = {
  readonly " $data"?: ApprovalsPage_queue$data;
  readonly " $fragmentSpreads": FragmentRefs<"ApprovalsPage_queue">;
};

import ApprovalsPageRefetchQuery_graphql from './ApprovalsPageRefetchQuery.graphql';

const node: ReaderFragment = (function(){
var v0 = [
  "pending"
];
return {
  "argumentDefinitions": [
    {
      "defaultValue": null,
      "kind": "LocalArgument",
      "name": "after"
    },
    {
      "defaultValue": 50,
      "kind": "LocalArgument",
      "name": "first"
    }
  ],
  "kind": "Fragment",
  "metadata": {
    "connection": [
      {
        "count": "first",
        "cursor": "after",
        "direction": "forward",
        "path": (v0/*:: as any*/)
      }
    ],
    "refetch": {
      "connection": {
        "forward": {
          "count": "first",
          "cursor": "after"
        },
        "backward": null,
        "path": (v0/*:: as any*/)
      },
      "fragmentPathInResult": [],
      "operation": ApprovalsPageRefetchQuery_graphql
    }
  },
  "name": "ApprovalsPage_queue",
  "selections": [
    {
      "alias": "pending",
      "args": [
        {
          "kind": "Literal",
          "name": "status",
          "value": "pending_approval"
        }
      ],
      "concreteType": "TransactionConnection",
      "kind": "LinkedField",
      "name": "__ApprovalsPage_pending_connection",
      "plural": false,
      "selections": [
        {
          "alias": null,
          "args": null,
          "kind": "ScalarField",
          "name": "totalCount",
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "concreteType": "TransactionEdge",
          "kind": "LinkedField",
          "name": "edges",
          "plural": true,
          "selections": [
            {
              "alias": null,
              "args": null,
              "concreteType": "Transaction",
              "kind": "LinkedField",
              "name": "node",
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
                  "name": "status",
                  "storageKey": null
                },
                {
                  "args": null,
                  "kind": "FragmentSpread",
                  "name": "ApprovalRow_transaction"
                },
                {
                  "alias": null,
                  "args": null,
                  "kind": "ScalarField",
                  "name": "__typename",
                  "storageKey": null
                }
              ],
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "cursor",
              "storageKey": null
            }
          ],
          "storageKey": null
        },
        {
          "alias": null,
          "args": null,
          "concreteType": "PageInfo",
          "kind": "LinkedField",
          "name": "pageInfo",
          "plural": false,
          "selections": [
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "endCursor",
              "storageKey": null
            },
            {
              "alias": null,
              "args": null,
              "kind": "ScalarField",
              "name": "hasNextPage",
              "storageKey": null
            }
          ],
          "storageKey": null
        }
      ],
      "storageKey": "__ApprovalsPage_pending_connection(status:\"pending_approval\")"
    }
  ],
  "type": "Query",
  "abstractKey": null
};
})();

(node as any).hash = "ea758de61de8ce13384be13e567f540a";

export default node;
