package app

// StudioOpenAPIYAML returns the studio API's OpenAPI document, as served at
// /studio/v1/openapi.yaml.
func StudioOpenAPIYAML() ([]byte, error) {
	return NewServer(Modules{}, documentConfig()).StudioAPI.OpenAPI().YAML()
}
