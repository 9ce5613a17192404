// Keeps localstack/ (and its node_modules, which ship Go templates) out of
// the main module's ./... patterns. No Go code lives here.
module sesame-localstack

go 1.26
