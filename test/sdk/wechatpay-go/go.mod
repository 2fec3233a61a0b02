module till.test/sdk/wechatpay-go

go 1.22

require github.com/wechatpay-apiv3/wechatpay-go v0.2.21
