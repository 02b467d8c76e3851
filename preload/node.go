package preload

// Node is what the schema's Node interface binds: any of the models whose
// type implements Node (*Agent, *transaction.Transaction, *trust.Dispute,
// *webhook.Endpoint, *webhook.Delivery, *event.Event, *mandate.Mandate, ...). It has no methods so
// that the domain types need none for the schema's sake; the generated code
// switches on the concrete type.
type Node interface{}
