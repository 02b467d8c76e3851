import { Component, type ReactNode } from "react";
import { ErrorBox } from "./ErrorBox";

type Props = { children: ReactNode; onSignOut?: () => void; title?: string };
type State = { error: unknown };

// ErrorBoundary shows a failed query's error in place of what it would have
// drawn, with a way to try again.
export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  render() {
    if (this.state.error == null) return this.props.children;
    return (
      <div className="boundary">
        <ErrorBox error={this.state.error} {...(this.props.title ? { title: this.props.title } : {})} />
        <button type="button" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
        {this.props.onSignOut && (
          <button type="button" onClick={this.props.onSignOut}>
            Sign out
          </button>
        )}
      </div>
    );
  }
}
