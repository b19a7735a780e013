package server

import "go.uber.org/zap"

func zapHost(name, version string) zap.Field {
	return zap.Dict("host", zap.String("name", name), zap.String("version", version))
}

func zapState(a activation) zap.Field {
	return zap.Dict("activation", zap.String("state", a.State), zap.String("code", a.Code))
}

func zapCode(code string) zap.Field { return zap.String("code", code) }
