package stock

//go:generate go tool gqlgen generate
