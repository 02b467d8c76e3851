/**
 * @generated SignedSource<<4bcaa3d25063547a039ce81d1d412523>>
 * @lightSyntaxTransform
 */

/* tslint:disable */
/* eslint-disable */
// @ts-nocheck

import { ConcreteRequest } from 'relay-runtime';
import { FragmentRefs } from "relay-runtime";
export type ApiKeyRole = "admin" | "agent" | "readonly";
export type CreateApiKeyInput = {
  agentIds?: ReadonlyArray<string> | null | undefined;
  name: string;
  role: ApiKeyRole;
};
export type KeysPageCreateMutation$variables = {
  input: CreateApiKeyInput;
};
export type KeysPageCreateMutation$data = {
  readonly createApiKey: {
    readonly key: {
      readonly id: string;
      readonly " $fragmentSpreads": FragmentRefs<"KeyRow_key">;
    };
    readonly secret: string;
  };
};
export type KeysPageCreateMutation = {
  response: KeysPageCreateMutation$data;
  variables: KeysPageCreateMutation$variables;
};

const node: ConcreteRequest = (function(){
var v0 = [
  {
    "defaultValue": null,
    "kind": "LocalArgument",
    "name": "input"
  }
],
v1 = [
  {
    "kind": "Variable",
    "name": "input",
    "variableName": "input"
  }
],
v2 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "id",
  "storageKey": null
},
v3 = {
  "alias": null,
  "args": null,
  "kind": "ScalarField",
  "name": "secret",
  "storageKey": null
};
return {
  "fragment": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Fragment",
    "metadata": null,
    "name": "KeysPageCreateMutation",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "CreatedApiKey",
        "kind": "LinkedField",
        "name": "createApiKey",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "concreteType": "ApiKey",
            "kind": "LinkedField",
            "name": "key",
            "plural": false,
            "selections": [
              (v2/*:: as any*/),
              {
                "args": null,
                "kind": "FragmentSpread",
                "name": "KeyRow_key"
              }
            ],
            "storageKey": null
          },
          (v3/*:: as any*/)
        ],
        "storageKey": null
      }
    ],
    "type": "Mutation",
    "abstractKey": null
  },
  "kind": "Request",
  "operation": {
    "argumentDefinitions": (v0/*:: as any*/),
    "kind": "Operation",
    "name": "KeysPageCreateMutation",
    "selections": [
      {
        "alias": null,
        "args": (v1/*:: as any*/),
        "concreteType": "CreatedApiKey",
        "kind": "LinkedField",
        "name": "createApiKey",
        "plural": false,
        "selections": [
          {
            "alias": null,
            "args": null,
            "concreteType": "ApiKey",
            "kind": "LinkedField",
            "name": "key",
            "plural": false,
            "selections": [
              (v2/*:: as any*/),
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "name",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "role",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "agentIds",
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
                "name": "lastUsedAt",
                "storageKey": null
              },
              {
                "alias": null,
                "args": null,
                "kind": "ScalarField",
                "name": "revokedAt",
                "storageKey": null
              }
            ],
            "storageKey": null
          },
          (v3/*:: as any*/)
        ],
        "storageKey": null
      }
    ]
  },
  "params": {
    "cacheID": "5488a9878bb7eea941197fe89f70bfdf",
    "id": null,
    "metadata": {},
    "name": "KeysPageCreateMutation",
    "operationKind": "mutation",
    "text": "mutation KeysPageCreateMutation(\n  $input: CreateApiKeyInput!\n) {\n  createApiKey(input: $input) {\n    key {\n      id\n      ...KeyRow_key\n    }\n    secret\n  }\n}\n\nfragment KeyRow_key on ApiKey {\n  id\n  name\n  role\n  agentIds\n  createdAt\n  lastUsedAt\n  revokedAt\n}\n"
  }
};
})();

(node as any).hash = "526f3296f577a625342e448bab5a1e16";

export default node;
