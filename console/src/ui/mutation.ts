import { useCallback } from "react";
import { useMutation, type UseMutationConfig } from "react-relay/hooks";
import type { GraphQLTaggedNode, MutationParameters } from "relay-runtime";
import { asApiError } from "../relay/errors";

// useCommit wraps Relay's useMutation as a promise that rejects with the
// API's error, so a form can show it.
export function useCommit<T extends MutationParameters>(
  mutation: GraphQLTaggedNode,
): [(variables: T["variables"], extra?: Partial<UseMutationConfig<T>>) => Promise<T["response"]>, boolean] {
  const [commit, pending] = useMutation<T>(mutation);
  const run = useCallback(
    (variables: T["variables"], extra?: Partial<UseMutationConfig<T>>) =>
      new Promise<T["response"]>((resolve, reject) => {
        commit({
          ...extra,
          variables,
          onCompleted: (response, errors) => (errors?.length ? reject(asApiError(errors)) : resolve(response)),
          onError: (err) => reject(asApiError(err)),
        });
      }),
    [commit],
  );
  return [run, pending];
}
