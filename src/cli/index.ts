console.log('checkout-partner: coming soon');
