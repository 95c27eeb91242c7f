package httpapi

// OpenAPIYAML renders the OpenAPI document of every registered operation. The same document
// is committed as openapi.yaml beside this file; a test fails when the two differ.
func OpenAPIYAML() ([]byte, error) {
	_, api := New(Deps{})
	return api.OpenAPI().YAML()
}
