// Starts GraphiQL from the embedded bundles; every request goes to this origin.
(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('playground-config').textContent);
  var url = location.origin + cfg.endpoint;
  var wsURL = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + cfg.endpoint;

  // Browsers cannot set headers on a websocket upgrade, so the headers of the
  // editor travel in connection_init (graphql-transport-ws). The client opens
  // a connection only while a subscription runs, so changed headers take
  // effect on the next subscription.
  var headers = {};
  var wsClient = graphqlWs.createClient({
    url: wsURL,
    lazy: true,
    connectionParams: function () { return headers; }
  });
  var fetchHTTP = GraphiQL.createFetcher({ url: url });

  // Routed on the query text itself, so a subscription typed and run at once
  // still goes over the websocket.
  function isSubscription(params) {
    try {
      var ops = GraphiQL.GraphQL.parse(params.query).definitions.filter(function (d) {
        return d.kind === 'OperationDefinition';
      });
      var op = params.operationName
        ? ops.find(function (d) { return d.name && d.name.value === params.operationName; })
        : ops[0];
      return Boolean(op) && op.operation === 'subscription';
    } catch (e) {
      return false; // the server explains the syntax error
    }
  }

  // GraphiQL's first schema request comes before its headers editor exists
  // and carries no headers: use the saved (or pre-filled) ones instead.
  function savedHeaders() {
    try {
      return JSON.parse(localStorage.getItem('graphiql:headers') || cfg.defaultHeaders);
    } catch (e) {
      return {};
    }
  }

  function fetcher(params, opts) {
    headers = opts && opts.headers && Object.keys(opts.headers).length ? opts.headers : savedHeaders();
    opts = Object.assign({}, opts, { headers: headers });
    if (authOf(headers).indexOf('\u2026') >= 0) {
      // Still the placeholder: say what to do instead of sending it.
      return Promise.resolve({ errors: [{ message: cfg.placeholderHint }] });
    }
    if (isSubscription(params)) {
      return wsClient.iterate({
        query: params.query,
        variables: params.variables,
        operationName: params.operationName || undefined
      });
    }
    return fetchHTTP(params, opts);
  }

  // The schema (docs, explorer, completion) needs a key too: when a new
  // Authorization header is typed or pasted, fetch the schema again.
  function authOf(h) {
    return String((h && (h.Authorization || h.authorization)) || '');
  }
  function authorization(text) {
    try {
      return authOf(JSON.parse(text || '{}'));
    } catch (e) {
      return '';
    }
  }
  var introspectedWith = authOf(savedHeaders()); // GraphiQL introspects with these on load
  var refetchTimer = 0;
  function onEditHeaders(text) {
    var auth = authorization(text);
    if (!auth || auth === introspectedWith || auth.indexOf('\u2026') >= 0) {
      return;
    }
    clearTimeout(refetchTimer);
    refetchTimer = setTimeout(function () {
      var button = document.querySelector('[aria-label="Re-fetch GraphQL schema"]');
      if (button) {
        introspectedWith = auth;
        button.click();
      }
    }, 400);
  }

  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultQuery: cfg.defaultQuery,
    defaultHeaders: cfg.defaultHeaders,
    defaultEditorToolsVisibility: 'headers',
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: true,
    onEditHeaders: onEditHeaders,
    plugins: [GraphiQLPluginExplorer.explorerPlugin()],
    inputValueDeprecation: true
  }));
})();
